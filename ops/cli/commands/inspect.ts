/**
 * `apkrelay inspect FILE... [--json]`: verify APKs as Android would and show what the service
 * reads from them. One JSON object per file per line with --json, else a short summary.
 * Exit status 1 when any file is not a validly signed APK.
 */
import type { Command } from 'commander';
import { inspectApk, type InspectReport } from '../../../shared/apk';

function schemesOf(report: InspectReport): string {
  const names = Object.entries(report.schemes)
    .filter(([, on]) => on)
    .map(([name]) => name);
  return names.length > 0 ? names.join('+') : 'none';
}

export function formatReport(report: InspectReport): string {
  const head = `${report.file}: ${report.valid ? 'VALID' : 'INVALID'}`;
  const lines = [head];
  if (report.package !== null) {
    lines.push(
      `  package ${report.package}  versionCode ${report.versionCode ?? '-'}  versionName ${report.versionName ?? '-'}`,
      `  minSdk ${report.minSdk ?? '-'}  targetSdk ${report.targetSdk ?? '-'}  testOnly ${String(report.testOnly)}  debuggable ${String(report.debuggable)}`,
    );
  }
  lines.push(
    `  schemes ${schemesOf(report)}  size ${report.size ?? '-'}  sha256 ${report.sha256 ?? '-'}`,
  );
  for (const s of report.signers) lines.push(`  signer ${s.sha256}`);
  for (const e of report.errors) lines.push(`  error ${e.code}: ${e.message}`);
  return lines.join('\n');
}

export function register(program: Command): void {
  program
    .command('inspect')
    .description('Verify APK signatures as Android does and print package details.')
    .argument('<files...>', 'APK files')
    .option('--json', 'print one JSON object per file per line')
    .action(async (files: string[], opts: { json?: boolean }) => {
      let allValid = true;
      for (const file of files) {
        const report = await inspectApk(file);
        allValid &&= report.valid;
        process.stdout.write(`${opts.json ? JSON.stringify(report) : formatReport(report)}\n`);
      }
      if (!allValid) process.exitCode = 1;
    });
}
