/** CPU time (user + system) another process has used so far, from /proc/<pid>/stat (Linux). */
import { readFile } from 'node:fs/promises';

/** USER_HZ: the unit of /proc times; 100 on every mainstream Linux build. */
const TICKS_PER_SECOND = 100;

/** Seconds of CPU `pid` has used, or null when it is gone. */
export async function cpuSeconds(pid: number): Promise<number | null> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // pid (comm) state ppid ... — comm may hold spaces, so split after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const utime = Number(fields[11]);
    const stime = Number(fields[12]);
    if (!Number.isFinite(utime) || !Number.isFinite(stime)) return null;
    return (utime + stime) / TICKS_PER_SECOND;
  } catch {
    return null;
  }
}

/** CPU seconds each named process used between two snapshots. */
export async function cpuSnapshot(
  pids: Readonly<Record<string, number>>,
): Promise<() => Promise<Record<string, number>>> {
  const before = new Map<string, number>();
  for (const [name, pid] of Object.entries(pids)) before.set(name, (await cpuSeconds(pid)) ?? 0);
  return async () => {
    const used: Record<string, number> = {};
    for (const [name, pid] of Object.entries(pids)) {
      const seconds = ((await cpuSeconds(pid)) ?? 0) - (before.get(name) ?? 0);
      used[name] = Math.round(seconds * 100) / 100; // whole ticks
    }
    return used;
  };
}
