/**
 * The queue board in the access matrix: every route bull-board mounts under /ops/queues (read from
 * bull-board's own route list, so an upgrade that adds one fails the matrix until matrix.tsv has
 * its row), how each role asks it, and the state a refused write must leave untouched.
 */
import { appRoutes } from '@bull-board/api/dist/routes.js';
import { OPS_BOARD_PATH } from '../../../api/operations/ops-board';
import { HOUSEKEEPING_SCHEDULE } from '../../../shared/queues/housekeeping';
import { QUEUES } from '../../../shared/queues/index';
import { eventually } from '../../helpers/eventually';
import { bearer, cookie, type CaseContext, type Entry } from './expectations';
import { boardJudge, type Call } from './judge';
import type { World } from './world';

/** bull-board's assets (`setStaticPath('/static', ...)` in createBullBoard). */
const STATIC = { method: 'get', route: '/static/*' } as const;

/** `METHOD /ops/queues/...` of every route the board serves. */
export function boardRoutes(): string[] {
  const entry = appRoutes.entryPoint;
  const routes = [...[entry.route].flat().map((route) => ({ method: entry.method, route }))];
  for (const r of [...appRoutes.api, STATIC]) {
    for (const method of [r.method].flat()) routes.push({ method, route: [r.route].flat()[0]! });
  }
  return routes.map(
    (r) => `${r.method.toUpperCase()} ${OPS_BOARD_PATH}${r.route === '/' ? '' : r.route}`,
  );
}

/** The BullMQ id of A's upload job (shared/queues/apk-ingest.ts names jobs after the upload). */
const jobOfA = (w: World) => `upload-${w.a.jobId}`;

/** A job name no one but a board write that got through would add. */
const FORGED = 'access-matrix-forged';

/** What to put in the path: retries name the failed job, scheduler routes the scheduler. */
function concrete(route: string, w: World): string {
  const retry = /\/retry(\/|$)/.test(route);
  const scheduler = route.includes('job-schedulers/:schedulerId');
  return route
    .replace(':queueName', retry || scheduler ? 'housekeeping' : 'apk-ingest')
    .replace(':jobId', retry ? w.failedJobId : jobOfA(w))
    .replace(':queueStatus', retry ? 'failed' : 'completed')
    .replace(':schedulerId', HOUSEKEEPING_SCHEDULE.id)
    .replace('/static/*', '/static/images/logo.svg');
}

/** Bodies a write would need, so a write that got past the gate would do its harm. */
function bodyOf(route: string, w: World): unknown {
  if (route.endsWith('/add')) {
    return { name: FORGED, data: { accountId: w.b.id, appId: 'forged' }, options: {} };
  }
  if (route.endsWith('/concurrency')) return { concurrency: 1 };
  if (route.endsWith('/rate-limit')) return { max: 1, duration: 60_000 };
  if (route.endsWith('/obliterate')) return { force: true };
  if (route.endsWith('/update-data')) return { data: { accountId: w.b.id } };
  if (route.endsWith('/delay')) return { delay: 60_000 };
  if (route.endsWith('/priority')) return { priority: 7 };
  if (route.includes('job-schedulers/')) return { repeat: { every: 1000 } };
  return {};
}

/** Waits until the world's failing job has failed again (a retry re-runs it). */
async function failedAgain(w: World): Promise<void> {
  await eventually(
    'the failing housekeeping job to fail again',
    async () => {
      const job = await w.queue('housekeeping').getJob(w.failedJobId);
      return (await job?.getState()) === 'failed';
    },
    { intervalMs: 100 },
  );
}

function boardEntry(key: string): Entry {
  const [method, path] = key.split(' ') as [Call['method'], string];
  const route = path.slice(OPS_BOARD_PATH.length);
  const writes = method !== 'GET';
  return {
    judge: boardJudge,
    // Writes after the other routes' cases (a write that got through must not spoil them), and
    // before those that replace A's key or link.
    last: writes ? 0.5 : undefined,
    call: async (c: CaseContext) => {
      if (c.role === 'operator' && route.includes('retry')) await failedAgain(c.w);
      return {
        method,
        path: `${OPS_BOARD_PATH}${concrete(route, c.w)}`,
        // The board takes API keys only: a session cookie alone (the forged form) is not enough.
        headers: { ...bearer(c), ...cookie(c) },
        json: writes ? bodyOf(route, c.w) : undefined,
      };
    },
  };
}

export function boardEntries(): Record<string, Entry> {
  return Object.fromEntries(boardRoutes().map((key) => [key, boardEntry(key)]));
}

/**
 * What no refused write may change: no queue paused, no global concurrency or rate limit set,
 * A's upload job present with its data and options, no forged job, the housekeeping scheduler.
 */
export async function boardState(w: World): Promise<string> {
  const state: Record<string, unknown> = {};
  for (const { name } of QUEUES) {
    const queue = w.queue(name);
    state[name] = {
      paused: await queue.isPaused(),
      concurrency: await queue.getGlobalConcurrency(),
      rateLimit: await queue.getGlobalRateLimit(),
      forged: (await queue.getJobs()).filter((j) => j.name === FORGED).length,
    };
  }
  const job = await w.queue('apk-ingest').getJob(jobOfA(w));
  state.jobOfA = job
    ? { data: job.data as unknown, opts: job.opts, state: await job.getState() }
    : null;
  const schedulers = await w.queue('housekeeping').getJobSchedulers();
  state.schedulers = schedulers.map((s) => ({ key: s.key, every: s.every, pattern: s.pattern }));
  return JSON.stringify(state);
}
