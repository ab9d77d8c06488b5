/**
 * The lines of a stack trace told apart: the app's own frames (classes of its package), the
 * platform's and language runtimes' frames (android., java., kotlin., androidx., com.android.,
 * dalvik. …), other libraries' frames, and the lines that are not frames (the exception line,
 * `Caused by:`, `... N more`). Pure. The report page shows the app's frames and folds runs of
 * framework frames away.
 */
export type FrameKind = 'app' | 'framework' | 'library' | 'text';

export interface FrameRun {
  readonly kind: FrameKind;
  readonly lines: readonly string[];
}

/** Class-name prefixes of the Android platform, the Java and Kotlin runtimes and their kin. */
export const FRAMEWORK_PREFIXES = [
  'android.',
  'androidx.',
  'com.android.',
  'com.google.android.',
  'dalvik.',
  'java.',
  'javax.',
  'jdk.',
  'kotlin.',
  'kotlinx.',
  'libcore.',
  'sun.',
  'org.apache.harmony.',
] as const;

const FRAME = /^\s*at\s+([\w$.]+)/;

export function frameKind(line: string, appPackage: string): FrameKind {
  const name = FRAME.exec(line)?.[1];
  if (name === undefined) return 'text';
  if (name.startsWith(`${appPackage}.`)) return 'app';
  return FRAMEWORK_PREFIXES.some((p) => name.startsWith(p)) ? 'framework' : 'library';
}

/** The lines in order, consecutive lines of the same kind in one run. */
export function frameRuns(lines: readonly string[], appPackage: string): FrameRun[] {
  const runs: Array<{ kind: FrameKind; lines: string[] }> = [];
  for (const line of lines) {
    const kind = frameKind(line, appPackage);
    const last = runs[runs.length - 1];
    if (last?.kind === kind) last.lines.push(line);
    else runs.push({ kind, lines: [line] });
  }
  return runs;
}
