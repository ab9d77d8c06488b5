import type { Queue } from 'bullmq';
import type { NoticeSink } from '../notices/version-notice';
import { versionNoticeQueue } from './version-notice';

/** Version notices go out through the `version-notice` queue (de-duplicated by job id). */
export function queueNoticeSink(queue: Queue): NoticeSink {
  return {
    async publish(notice) {
      const payload = versionNoticeQueue.parse(notice);
      await queue.add('notice', payload, {
        ...versionNoticeQueue.jobOptions,
        jobId: versionNoticeQueue.jobId!(payload),
      });
    },
  };
}
