/**
 * Real consecutive releases of open-source Android apps that publish their APKs in npm packages
 * (Appium's settings app, its UiAutomator2 server and test APKs, the ApiDemos fork), fetched with
 * `npm pack` (the ordinary client) and unpacked under `.data/bench-delta/` (never committed; a
 * second run reads the cache).
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface NpmApp {
  /** What the bench calls it. */
  readonly name: string;
  readonly npmPackage: string;
  /** The APK inside the unpacked package (`package/...`). */
  readonly apk: RegExp;
}

export const NPM_APPS: readonly NpmApp[] = [
  { name: 'io.appium.settings', npmPackage: 'io.appium.settings', apk: /settings_apk-debug\.apk$/ },
  {
    name: 'uiautomator2 test',
    npmPackage: 'appium-uiautomator2-server',
    apk: /appium-uiautomator2-server-debug-androidTest\.apk$/,
  },
  {
    name: 'uiautomator2 server',
    npmPackage: 'appium-uiautomator2-server',
    apk: /appium-uiautomator2-server-v[\d.]+\.apk$/,
  },
  { name: 'android-apidemos', npmPackage: 'android-apidemos', apk: /ApiDemos-debug\.apk$/ },
];

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
}

/** The last `count` published versions of a package, oldest first (prereleases left out). */
export async function lastVersions(npmPackage: string, count: number): Promise<string[]> {
  const { stdout } = await run('npm', ['view', npmPackage, 'versions', '--json']);
  const all = (JSON.parse(stdout) as string[]).filter((v) => /^\d+\.\d+\.\d+$/.test(v));
  return all.slice(-count);
}

/** The APK of `app` at `version`, from the cache or fetched; null when the package has none. */
export async function npmApk(cache: string, app: NpmApp, version: string): Promise<string | null> {
  const dir = path.join(cache, `${app.npmPackage}-${version}`);
  if (!existsSync(path.join(dir, 'package'))) {
    await mkdir(dir, { recursive: true });
    const { stdout } = await run('npm', ['pack', `${app.npmPackage}@${version}`, '--silent'], {
      cwd: dir,
      maxBuffer: 1 << 20,
    });
    await run('tar', ['-xzf', stdout.trim().split('\n').at(-1)!], { cwd: dir });
  }
  return (await filesUnder(path.join(dir, 'package'))).find((f) => app.apk.test(f)) ?? null;
}
