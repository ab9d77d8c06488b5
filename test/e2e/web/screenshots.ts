/**
 * `npm run screenshots`: a PNG of each page the every-page test walks (the first of each shape,
 * pages with a query left out), at 1,366 px, into docs/screenshots/, and docs/web-admin.md's list
 * of them (between its markers) rewritten: one line per page, its heading, path and picture. A
 * long page is cut to fewer pixels until its PNG is under 300 KB.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { shapeOf } from './walker';

const MAX_BYTES = 300 * 1024;
const WIDTH = 1366;
const HEIGHTS = [2400, 1600, 1000, 700];
const START = '<!-- screenshots:start -->';
const END = '<!-- screenshots:end -->';

/** `/ui/apps/dev.apkrelay.sample/rollouts` → `apps-dev.apkrelay.sample-rollouts`; ids → `one`. */
export function fileNameOf(url: URL): string {
  const shape = shapeOf(url).split('?')[0]!;
  return shape
    .split('/')
    .filter((p) => p !== '' && p !== 'ui')
    .map((p) => (p === '*' ? 'one' : p.replace(/[^\w.-]/g, '_')))
    .join('-');
}

/** A PNG of the page under MAX_BYTES: the whole page, else its top, ever shorter. */
async function capture(page: Page): Promise<Buffer> {
  const whole = await page.screenshot({ fullPage: true });
  if (whole.length <= MAX_BYTES) return whole;
  for (const height of HEIGHTS) {
    const shot = await page.screenshot({
      fullPage: true,
      clip: { x: 0, y: 0, width: WIDTH, height },
    });
    if (shot.length <= MAX_BYTES) return shot;
  }
  throw new Error(`${page.url()}: no screenshot under ${MAX_BYTES} bytes`);
}

export async function saveScreenshots(page: Page, urls: readonly string[], dir: string) {
  await mkdir(dir, { recursive: true });
  await page.setViewportSize({ width: WIDTH, height: 900 });
  const lines: string[] = [];
  const done = new Set<string>();
  for (const url of urls) {
    const name = fileNameOf(new URL(url));
    if (new URL(url).search || done.has(name)) continue;
    done.add(name);
    await page.goto(url);
    await writeFile(path.join(dir, `${name}.png`), await capture(page));
    const heading = (await page.locator('main h1').first().innerText()).trim();
    // The path with ids as `<id>`, so a new run rewrites the same lines.
    const where = shapeOf(new URL(url)).split('?')[0]!.replace(/\*/g, '<id>');
    lines.push(`- **${heading}** (\`${where}\`): ![${heading}](screenshots/${name}.png)`);
  }
  const doc = path.join(dir, '..', 'web-admin.md');
  const text = await readFile(doc, 'utf8');
  const from = text.indexOf(START);
  const to = text.indexOf(END);
  if (from < 0 || to < from) throw new Error(`${doc}: no ${START} … ${END} markers`);
  await writeFile(
    doc,
    `${text.slice(0, from + START.length)}\n\n${lines.join('\n')}\n\n${text.slice(to)}`,
  );
}
