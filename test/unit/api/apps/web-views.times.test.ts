/** The APKs tab and the download-link page tell times in the one format (api/web/time.ts). */
import { ObjectId } from 'mongodb';
import type { AppDoc } from '../../../../shared/catalog/types';
import { apksTab, linkPage } from '../../../../api/apps/web-views';
import { flat } from '../../../helpers/markup';
import { apkDoc, viewerAs } from '../../../helpers/web-views';

const app = { _id: new ObjectId(), package: 'p.q', currentApkId: null } as unknown as AppDoc;
// apkDoc's uploads are at 2026-11-25 12:00 UTC: four days before "now".
const NOW = new Date('2026-11-29T12:00:00Z');

test('an APK’s upload time is relative, with the exact time on hover', () => {
  const out = flat(
    apksTab(viewerAs('owner'), app, [apkDoc(new ObjectId(), 1)], {
      funnels: new Map(),
      adoption: [],
      now: NOW,
    }),
  );
  expect(out).toContain(
    '<time datetime="2026-11-25T12:00:00.000Z" title="2026-11-25 12:00:00 UTC">4 d ago</time>',
  );
});

test('a download link’s expiry is relative to now', () => {
  const out = flat(
    linkPage(viewerAs('owner'), app, {
      url: 'https://example.test/d/t',
      qrPath: '/d/t/qr.svg',
      expiresAt: new Date('2026-11-29T14:30:00Z'),
      versionName: '1.0',
      now: NOW,
    }),
  );
  expect(out).toContain('Valid until <time datetime="2026-11-29T14:30:00.000Z"');
  expect(out).toContain('>in 2 h</time>');
});
