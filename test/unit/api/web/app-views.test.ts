/** The installations tab of an app page: which channel and SDK version each device uses. */
import { ObjectId } from 'mongodb';
import type { Account } from '../../../../shared/accounts/types';
import type { AppDoc } from '../../../../shared/catalog/types';
import { installationsTab } from '../../../../api/web/app-views';

const viewer = {
  account: { id: 'a1', email: 'o@example.com' } as Account,
  user: { memberId: null, email: 'o@example.com', role: 'owner' as const },
  apiKey: 'ak',
  csrf: 'c',
};
const app = { _id: new ObjectId(), accountId: 'a1', package: 'dev.apkrelay.sample' } as AppDoc;

function row(deviceId: string, channel: 'sse' | 'pushlink', plVersion: string | null) {
  return {
    deviceId,
    status: 'enabled' as const,
    online: true,
    installedMd5: null,
    lastDownloadedMd5: null,
    pendingApkId: null,
    strategy: null,
    channel,
    plVersion,
    device: { brand: null, model: null, osVersion: null, sdkInt: null },
    metadata: [],
    location: null,
    lastInstall: null,
    registeredAt: '2026-11-25T12:00:00.000Z',
    lastSeenAt: '2026-11-25T12:00:00.000Z',
  };
}

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
