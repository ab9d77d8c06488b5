/**
 * The installations tab of an app page: which channel and SDK version each device uses, what is
 * pending for it (an offer, or nothing because it is ahead), the summary strip of the fleet, the
 * filters as asked, and paging links that keep them.
 */
import { ObjectId } from 'mongodb';
import type { AppDoc } from '../../../../shared/catalog/types';
import type { FleetSummary } from '../../../../shared/devices/fleet-summary';
import { installationsTab, listQuery } from '../../../../api/devices/web-views';
import type { InstallationPage, ListingInput } from '../../../../api/devices/installations-list';
import { ANY_LISTING, installationRow, viewerAs } from '../../../helpers/web-views';

const viewer = viewerAs('owner');
const app = { _id: new ObjectId(), accountId: 'a1', package: 'dev.apkrelay.sample' } as AppDoc;
const row = installationRow;
const NOW = new Date('2026-11-25T12:05:00.000Z');
const EMPTY: FleetSummary = { total: 0, online: 0, offline: 0, versions: [], ahead: [] };
const ANY = ANY_LISTING;
const tab = (page: Omit<InstallationPage, 'summary'>, summary = EMPTY, input = ANY) =>
  installationsTab(viewer, app, { page: { ...page, summary }, input, apks: [], now: NOW });

test('each row names its channel, with the PushLink SDK version', () => {
  const out = tab({
    page: 1,
    pageSize: 50,
    total: 2,
    installations: [row('pl-1', 'pushlink', '5.6.0'), row('sse-1', 'sse', null)],
  });
  expect(out).toContain('<th scope="col">Channel</th>');
  const cells = (id: string) =>
    out
      .slice(out.indexOf(`>${id}</a>`))
      .split('</tr>')[0]!
      .match(/<td>[^<]*<\/td>/g);
  expect(cells('pl-1')).toContain('<td>PushLink SDK 5.6.0</td>');
  expect(cells('sse-1')).toContain('<td>apkrelay (SSE)</td>');
});

test('a device ahead of the current APK reads "ahead" where an offer would be pending', () => {
  const out = tab({
    page: 1,
    pageSize: 50,
    total: 2,
    installations: [{ ...row('ahead-1'), ahead: true }, row('level-1')],
  });
  const rowOf = (id: string) => out.slice(out.indexOf(`>${id}</a>`)).split('</tr>')[0]!;
  // After the device id's cell: Status, Running, then Pending.
  const pending = (id: string) => rowOf(id).split('<td>')[3]!.split('</td>')[0]!.trim();
  expect(out).toContain('<th scope="col">Pending</th>');
  expect(pending('ahead-1')).toMatch(/^<span\s+title="[^"]+"\s*>ahead<\/span\s*>$/);
  expect(pending('level-1')).toBe('—');
});

test('a row: its page linked, a status dot with its word, last seen relative to now', () => {
  const out = tab({ page: 1, pageSize: 50, total: 1, installations: [row('kiosk 1')] });
  expect(out).toContain('href="/ui/apps/dev.apkrelay.sample/installations/kiosk%201">kiosk 1</a>');
  expect(out).toMatch(/class="dot dot-online" aria-hidden="true">●<\/span> enabled \/ online/);
  expect(out).toMatch(/<time datetime="2026-11-25T12:00:00.000Z"[^>]*>5 min ago<\/time/);
  expect(out).toContain('<div class="table-scroll">');
});

test('the summary strip: totals, online, offline, each version with its share, ahead devices named', () => {
  const out = tab(
    { page: 1, pageSize: 50, total: 0, installations: [] },
    {
      total: 4,
      online: 3,
      offline: 1,
      versions: [
        { md5: 'm2', versionCode: 2, versionName: '1.1', installations: 3 },
        { md5: null, versionCode: null, versionName: null, installations: 1 },
      ],
      ahead: ['d7', 'd9'],
    },
  ).replace(/\s+/g, ' ');
  expect(out).toContain('<strong data-summary="total">4</strong> installations');
  expect(out).toContain('<strong data-summary="online">3</strong> online');
  expect(out).toContain('<strong data-summary="offline">1</strong> offline');
  expect(out).toMatch(
    /<li data-version="2"> <a href="[^"]*installations\?version=2">1.1 \(2\)<\/a>: <strong>3<\/strong> \(75 %\) <\/li>/,
  );
  expect(out).toMatch(/<li data-version="unknown"> unknown version: <strong>1<\/strong> \(25 %\)/);
  expect(out).toMatch(/data-summary="ahead">[^<]*: d7, d9 </);
});

test('the filters show what was asked, and the paging links keep it', () => {
  const input: ListingInput = {
    ...ANY,
    page: 2,
    pageSize: 2,
    status: 'online',
    version: 3,
    meta: { key: 'store', value: 'a=b' },
    sort: 'deviceId',
  };
  const out = tab(
    { page: 2, pageSize: 2, total: 5, installations: [row('x')] },
    EMPTY,
    input,
  ).replace(/\s+/g, ' ');
  expect(out).toContain('<input id="meta" name="meta" value="store=a=b"');
  expect(out).toMatch(/<option value="online" selected/);
  expect(out).toMatch(/<option value="3" selected/);
  expect(out).toMatch(/<option value="deviceId" selected/);
  const query =
    'status=online&amp;version=3&amp;meta=store%3Da%3Db&amp;sort=deviceId&amp;pageSize=2';
  const base = '/ui/apps/dev.apkrelay.sample/installations';
  expect(out).toContain(`<a href="${base}?${query}&amp;page=1" rel="prev">Previous</a>`);
  expect(out).toContain(`<a href="${base}?${query}&amp;page=3" rel="next">Next</a>`);
  expect(out).toContain('page 2 of 3');
});

test('the list query leaves out what was not asked', () => {
  expect(listQuery(ANY, 3)).toBe('sort=lastSeen&page=3');
});
