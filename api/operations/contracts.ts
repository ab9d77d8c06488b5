/** The contract of the Prometheus metrics. */
import { contract } from '../route-contract';
import { errorResponse } from '../openapi/common';

/** Operations: Prometheus metrics. (The queue board `/ops/queues` is a UI, not part of the API.) */
export const metricsContract = contract({
  summary: 'Prometheus metrics (Bearer METRICS_TOKEN).',
  description:
    'Text exposition format 0.0.4. Per process: apkrelay_download_bytes_total, ' +
    'apkrelay_exception_reports_total{verdict}, apkrelay_push_streams_open{channel}. ' +
    'Deployment-wide ' +
    '(same from every API process): apkrelay_queue_jobs{queue,state}, ' +
    'apkrelay_jobs_overdue{queue}, ' +
    'apkrelay_job_duration_seconds{queue} (histogram), apkrelay_uploads{verdict}, ' +
    'apkrelay_backup_age_seconds. Off (404) when METRICS_TOKEN is not set.',
  security: [{ metricsToken: [] }],
  responses: {
    '200': {
      description: 'The metrics.',
      content: { 'text/plain; version=0.0.4': { schema: { type: 'string' } } },
    },
    '401': errorResponse('UNAUTHENTICATED: missing or wrong token'),
    '404': errorResponse('NOT_FOUND: metrics are off (no METRICS_TOKEN)'),
  },
});
