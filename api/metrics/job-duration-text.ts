/**
 * `apkrelay_job_duration_seconds` in Prometheus text format. The histogram lives in Redis (workers
 * add to it, see shared/metrics/job-durations.ts), which prom-client's Histogram cannot adopt, so
 * its exposition is written here.
 */
import type { Redis } from '../../shared/storage/redis';
import { readJobDurations } from '../../shared/metrics/job-durations';

const NAME = 'apkrelay_job_duration_seconds';

export async function jobDurationText(
  redis: Redis,
  prefix: string,
  queues: readonly string[],
): Promise<string> {
  const lines = [
    `# HELP ${NAME} Time from a job's start to its end, per queue (completed and failed; deployment-wide).`,
    `# TYPE ${NAME} histogram`,
  ];
  for (const queue of queues) {
    const h = await readJobDurations(redis, prefix, queue);
    for (const b of h.buckets)
      lines.push(`${NAME}_bucket{queue="${queue}",le="${b.le}"} ${b.count}`);
    lines.push(`${NAME}_sum{queue="${queue}"} ${h.sum}`);
    lines.push(`${NAME}_count{queue="${queue}"} ${h.count}`);
  }
  return `${lines.join('\n')}\n`;
}
