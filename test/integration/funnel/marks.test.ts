/**
 * The funnel's marks on the real MongoDB-protocol server: recording is idempotent under
 * concurrency (the same marks from many writers at once count once), counts per stage, grouped
 * counts per APK, and per-installation rows paged without splitting an installation.
 */
import {
  funnelCounts,
  funnelCountsByApk,
  funnelRows,
  recordMarks,
  recordOffers,
  recordReport,
} from '../../../shared/funnel/marks';
import { useIsolatedMongo } from '../../helpers/services';
import { ensureFunnelIndexes } from '../../../shared/funnel/collections';

const db = useIsolatedMongo();
const app = { accountId: 'acct-1', package: 'dev.example.funnel' };
const V2 = '22222222222222222222222222222222';
const V3 = '33333333333333333333333333333333';
const at = new Date('2026-11-25T10:00:00.000Z');
/** Installation ids as the store derives them: 24 hex digits. */
const inst = (n: number) => n.toString(16).padStart(24, '0');

beforeAll(() => ensureFunnelIndexes(db.mongo.db));

test('the same offers from 8 writers at once count each installation once', async () => {
  const ids = Array.from({ length: 50 }, (_, i) => inst(i + 1));
  await Promise.all(Array.from({ length: 8 }, () => recordOffers(db.mongo.db, app, V2, ids, at)));
  expect(await funnelCounts(db.mongo.db, app, V2)).toEqual({
    offered: 50,
    downloaded: 0,
    installed: 0,
    failed: 0,
  });
});

test('reports: downloaded, installed, failed with the message; repeats change nothing', async () => {
  const report = (n: number, r: Parameters<typeof recordReport>[3]) =>
    recordReport(db.mongo.db, app, inst(n), r, at);
  const failure = {
    md5: V2,
    status: 'failure',
    osStatus: 4,
    message: 'INSTALL_FAILED_INSUFFICIENT_STORAGE',
  } as const;
  for (let round = 0; round < 3; round++) {
    await Promise.all([
      report(1, { lastDownloadedMd5: V2 }),
      report(2, { lastDownloadedMd5: V2, installedMd5: V2 }),
      report(3, { lastDownloadedMd5: V2, outcome: failure }),
      report(4, { outcome: { md5: V2, status: 'success', osStatus: 0, message: null } }),
    ]);
  }
  expect(await funnelCounts(db.mongo.db, app, V2)).toEqual({
    offered: 50,
    downloaded: 3,
    installed: 2,
    failed: 1,
  });
  const { rows } = await funnelRows(db.mongo.db, app, V2, { after: null, limit: 4 });
  expect(rows[2]).toEqual({
    installation: inst(3),
    offeredAt: at,
    downloadedAt: at,
    installedAt: null,
    failedAt: at,
    failure: { osStatus: 4, message: 'INSTALL_FAILED_INSUFFICIENT_STORAGE' },
  });
});

test('rows are paged by installation, every mark of an installation on its page', async () => {
  const seen: string[] = [];
  let after: string | null = null;
  let pages = 0;
  do {
    const page: Awaited<ReturnType<typeof funnelRows>> = await funnelRows(db.mongo.db, app, V2, {
      after,
      limit: 7,
    });
    seen.push(...page.rows.map((r) => r.installation));
    after = page.next;
    pages += 1;
  } while (after !== null);
  expect(pages).toBe(8); // 50 installations, 7 a page
  expect(seen).toEqual(Array.from({ length: 50 }, (_, i) => inst(i + 1)));
});

test('grouped counts per APK, and another app’s marks are not counted', async () => {
  await recordMarks(db.mongo.db, app, [
    { installation: inst(1), md5: V3, stage: 'offered', at },
    { installation: inst(1), md5: V3, stage: 'installed', at },
  ]);
  await recordOffers(db.mongo.db, { ...app, package: 'dev.example.other' }, V2, [inst(99)], at);
  const byApk = await funnelCountsByApk(db.mongo.db, app);
  expect(Object.fromEntries(byApk)).toEqual({
    [V2]: { offered: 50, downloaded: 3, installed: 2, failed: 1 },
    [V3]: { offered: 1, downloaded: 0, installed: 1, failed: 0 },
  });
});
