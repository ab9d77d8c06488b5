/**
 * The app page of the web administration: its tabs (the Installations tab is in
 * api/devices/web-views.ts, Exceptions in api/exceptions/, Rollouts in api/rollouts/), the APKs
 * tab and a link page.
 */
import type { AdoptionPoint } from '../../shared/adoption/points';
import type { ApkDoc, AppDoc } from '../../shared/catalog/types';
import type { FunnelCounts } from '../../shared/funnel/marks';
import type { TransferSummary } from '../../shared/funnel/transfers';
import { deltaSavingLine } from './delta-saving';
import { adoptionChart } from '../insights/adoption-chart';
import { digest, html, type Html } from '../web/html';
import { scrollTable } from '../web/table';
import { when } from '../web/time';
import { layout, may, uploadForm, type Viewer } from '../web/views';

export type Tab = 'apks' | 'installations' | 'exceptions' | 'rollouts';

export function appLayout(viewer: Viewer, app: AppDoc, tab: Tab, body: Html): string {
  const base = `/ui/apps/${encodeURIComponent(app.package)}`;
  const tabs: Array<[Tab, string, string]> = [
    ['apks', 'APKs', base],
    ['installations', 'Installations', `${base}/installations`],
    ['exceptions', 'Exceptions', `${base}/exceptions`],
    ['rollouts', 'Rollouts', `${base}/rollouts`],
  ];
  return layout(
    `${app.package}`,
    viewer,
    html`<h1>${app.package}</h1>
      <nav class="tabs" aria-label="App sections">
        ${tabs.map(
          ([id, name, href]) =>
            html`<a href="${href}" ${id === tab ? html`aria-current="page"` : ''}>${name}</a>`,
        )}
      </nav>
      ${body}`,
  );
}

function hidden(viewer: Viewer, apk: ApkDoc): Html {
  return html`<input type="hidden" name="_csrf" value="${viewer.csrf}" />
    <input type="hidden" name="sha256" value="${apk.sha256}" />`;
}

/** An APK's install funnel, as the APKs tab shows it (api/insights/routes.ts has the rows). */
function funnelCell(counts: FunnelCounts | undefined): Html {
  const c = counts ?? { offered: 0, downloaded: 0, installed: 0, failed: 0 };
  return html`<dl class="funnel">
    <dt>offered</dt>
    <dd data-stage="offered">${c.offered}</dd>
    <dt>downloaded</dt>
    <dd data-stage="downloaded">${c.downloaded}</dd>
    <dt>installed</dt>
    <dd data-stage="installed">${c.installed}</dd>
    <dt>failed</dt>
    <dd data-stage="failed">${c.failed}</dd>
  </dl>`;
}

export interface ApksInsights {
  /** Install funnel counts by APK MD5. */
  readonly funnels: ReadonlyMap<string, FunnelCounts>;
  /** How updates came (patch or whole) by APK MD5: the saving line under the funnel. */
  readonly transfers?: ReadonlyMap<string, TransferSummary>;
  readonly adoption: readonly AdoptionPoint[];
  /** The request's time, for the one time format (api/web/time.ts). */
  readonly now: Date;
  /** A refused form of this tab (Make current without its box ticked). */
  readonly problem?: string | null;
}

/**
 * An APK's buttons, those the viewer's role may use: make it current (unless it is), with a
 * warning when it is older than the current one; a download link.
 */
function apkActions(
  viewer: Viewer,
  base: string,
  apk: ApkDoc,
  { current, back }: { current: boolean; back: boolean },
): Html {
  return html`${
    current || !may(viewer, 'make-current')
      ? ''
      : html`<form class="inline" method="post" action="${base}/current">
          ${hidden(viewer, apk)}
          ${
            back
              ? html`<p class="notice">
                  Earlier than the current version: devices on a newer one give the update up.
                </p>`
              : ''
          }
          <label
            ><input type="checkbox" name="confirm" value="yes" required /> Every installation is
            offered ${apk.versionName ?? ''} (${apk.versionCode})</label
          >
          <button type="submit">Make current</button>
        </form>`
  }
  ${
    may(viewer, 'manage')
      ? html`<form class="inline" method="post" action="${base}/download-links">
          ${hidden(viewer, apk)}
          <button type="submit">Download link</button>
        </form>`
      : ''
  }`;
}

export function apksTab(
  viewer: Viewer,
  app: AppDoc,
  apks: readonly ApkDoc[],
  insights: ApksInsights,
): string {
  const base = `/ui/apps/${encodeURIComponent(app.package)}`;
  const currentCode = apks.find((a) => app.currentApkId?.equals(a._id))?.versionCode ?? null;
  const rows = apks.map((apk) => {
    const current = app.currentApkId?.equals(apk._id) ?? false;
    const back = currentCode !== null && apk.versionCode < currentCode;
    return html`<tr data-md5="${apk.md5}">
      <td>${apk.versionCode} ${current ? html`<span class="badge">current</span>` : ''}</td>
      <td>${apk.versionName}</td>
      <td>${digest('md5', apk.md5)}</td>
      <td>${digest('sha256', apk.sha256)}</td>
      <td>${digest('signer', apk.signerSha256)}</td>
      <td>${apk.size.toLocaleString('en')} B</td>
      <td>${when(apk.uploadedAt, insights.now)}</td>
      <td>${apk.whatsnew ?? ''}</td>
      <td>
        ${funnelCell(insights.funnels.get(apk.md5))}
        ${deltaSavingLine(insights.transfers?.get(apk.md5), apk.size)}
      </td>
      <td>${apkActions(viewer, base, apk, { current, back })}</td>
    </tr>`;
  });
  return appLayout(
    viewer,
    app,
    'apks',
    html`<h2>Version adoption</h2>
      ${adoptionChart(insights.adoption)}
      <h2>APKs</h2>
      ${insights.problem ? html`<p class="error" role="alert">${insights.problem}</p>` : ''}
      ${scrollTable(
        [
          'versionCode',
          'versionName',
          'md5',
          'sha256',
          'Signer',
          'Size',
          'Uploaded at',
          'Release text',
          'Install funnel',
          'Actions',
        ],
        rows,
      )}
      ${
        may(viewer, 'upload')
          ? html`<h2>Upload a new version</h2>
              ${uploadForm(viewer, `${base}/apks`)}`
          : ''
      }`,
  );
}

export function linkPage(
  viewer: Viewer,
  app: AppDoc,
  link: { url: string; qrPath: string; expiresAt: Date; versionName: string; now: Date },
): string {
  return appLayout(
    viewer,
    app,
    'apks',
    html`<h2>Download link to ${link.versionName}</h2>
      <p>
        <label for="link-url">Link</label>
        <input id="link-url" readonly size="80" value="${link.url}" />
        <button type="button" data-copy="link-url">Copy</button>
      </p>
      <p>Valid until ${when(link.expiresAt, link.now)}.</p>
      <img class="qr" src="${link.qrPath}" alt="QR code of the download link" />`,
  );
}
