/** Resident set size of another process, read from /proc/<pid>/status (Linux). */
import { readFile } from 'node:fs/promises';

const KB = 1024;

/** VmRSS of `pid` in bytes, or null when the process is gone. */
export async function rssBytes(pid: number): Promise<number | null> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const kb = /^VmRSS:\s+(\d+)\s+kB$/m.exec(status)?.[1];
    return kb === undefined ? null : Number(kb) * KB;
  } catch {
    return null;
  }
}

export interface RssPeak {
  readonly peak: number;
  readonly first: number;
  readonly samples: number;
}

export interface RssSampler {
  /** Stops sampling; the highest and the first sample, and how many were taken. */
  stop(): Promise<RssPeak>;
}

/** Samples VmRSS of `pid` every `intervalMs` until stopped (one read in flight at a time). */
export function sampleRss(pid: number, intervalMs: number): RssSampler {
  let peak = 0;
  let first = -1;
  let samples = 0;
  let running = true;
  const take = async () => {
    const rss = await rssBytes(pid);
    if (rss === null) return;
    samples++;
    if (first < 0) first = rss;
    peak = Math.max(peak, rss);
  };
  const loop = (async () => {
    while (running) {
      await take();
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
    await take();
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return { peak, first, samples };
    },
  };
}
