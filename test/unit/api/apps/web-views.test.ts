/**
 * The installations tab of an app page: which channel and SDK version each device uses, and what
 * is pending for it (an offer, or nothing because it is ahead).
 */
import { ObjectId } from 'mongodb';
import type { AppDoc } from '../../../../shared/catalog/types';
import { installationsTab } from '../../../../api/apps/web-views';
import { installationRow, viewerAs } from '../../../helpers/web-views';

const viewer = viewerAs('owner');
const app = { _id: new ObjectId(), accountId: 'a1', package: 'dev.apkrelay.sample' } as AppDoc;
const row = installationRow;

test('each row names its channel, with the PushLink SDK version', () => {
  const page = {
    page: 1,
    pageSize: 50,
    total: 2,
    installations: [row('pl-1', 'pushlink', '5.6.0'), row('sse-1', 'sse', null)],
  };
  const out = installationsTab(viewer, app, page, { status: '', q: '' }, []);
  expect(out).toContain('<th scope="col">Channel</th>');
  const cells = (id: string) =>
    out
      .slice(out.indexOf(`<code>${id}</code>`))
      .split('</tr>')[0]!
      .match(/<td>[^<]*<\/td>/g);
  expect(cells('pl-1')).toContain('<td>PushLink SDK 5.6.0</td>');
  expect(cells('sse-1')).toContain('<td>apkrelay (SSE)</td>');
});

test('a device ahead of the current APK reads "ahead" where an offer would be pending', () => {
  const page = {
    page: 1,
    pageSize: 50,
    total: 2,
    installations: [{ ...row('ahead-1'), ahead: true }, row('level-1')],
  };
  const out = installationsTab(viewer, app, page, { status: '', q: '' }, []);
  const rowOf = (id: string) => out.slice(out.indexOf(`<code>${id}</code>`)).split('</tr>')[0]!;
  // After the device id's cell: Status, Running, then Pending.
  const pending = (id: string) => rowOf(id).split('<td>')[3]!.split('</td>')[0]!.trim();
  expect(out).toContain('<th scope="col">Pending</th>');
  expect(pending('ahead-1')).toMatch(/^<span\s+title="[^"]+"\s*>ahead<\/span\s*>$/);
  expect(pending('level-1')).toBe('—');
});
