/** The APKs tab's Make current form: a box to tick first; a refusal shown on the tab. */
import { ObjectId } from 'mongodb';
import type { AppDoc } from '../../../../shared/catalog/types';
import { apksTab } from '../../../../api/apps/web-views';
import { flat } from '../../../helpers/markup';
import { apkDoc, viewerAs } from '../../../helpers/web-views';

const current = new ObjectId();
const app = { _id: new ObjectId(), package: 'p.q', currentApkId: current } as AppDoc;
const apk = apkDoc;
const apks = [apk(new ObjectId(), 2), apk(current, 1)];

test('Make current needs its box ticked, which names the version every installation is offered', () => {
  const out = flat(
    apksTab(viewerAs('owner'), app, apks, {
      funnels: new Map(),
      adoption: [],
      now: new Date('2026-11-29T12:00:00Z'),
    }),
  );
  const form =
    /<form class="inline" method="post" action="\/ui\/apps\/p.q\/current">(.*?)<\/form>/.exec(
      out,
    )?.[1];
  expect(form).toContain(
    '<input type="checkbox" name="confirm" value="yes" required /> Every installation is offered 2.0 (2)</label>',
  );
  expect(out).not.toContain('role="alert"');
});

test('a refusal is shown on the tab above the APKs', () => {
  const problem = 'Tick the box to confirm first: the current APK was not changed.';
  const out = flat(
    apksTab(viewerAs('owner'), app, apks, {
      funnels: new Map(),
      adoption: [],
      problem,
      now: new Date('2026-11-29T12:00:00Z'),
    }),
  );
  expect(out).toContain(
    `<h2>APKs</h2> <p class="error" role="alert">${problem}</p> <div class="table-scroll"> <table>`,
  );
});
