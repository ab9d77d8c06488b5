/**
 * One installation's page (/ui/apps/{package}/installations/{deviceId}): what it runs and how it
 * is reached, its last install as the OS answered it, its history of versions (the install
 * funnel's marks: offered, downloaded, installed, failed with the OS status and message) and its
 * crash reports, each linking to the report's page.
 */
import type { ApkDoc, AppDoc } from '../../shared/catalog/types';
import { appLayout } from '../apps/web-views';
import { html, type Html } from '../web/html';
import { scrollTable } from '../web/table';
import { when } from '../web/time';
import type { Viewer } from '../web/views';
import type { InstallationDetail } from './installation-detail';
import { statusCell, versionOf } from './web-views';

function lastInstall(d: InstallationDetail['installation'], now: Date): Html {
  const o = d.lastInstall;
  if (!o) return html`<p>No install outcome reported.</p>`;
  return html`<p data-last-install="${o.status}">
    ${o.status === 'success' ? 'Installed' : 'Failed to install'} versionCode ${o.versionCode}
    ${when(o.reportedAt, now)} · OS status ${o.osStatus ?? '—'}
    ${o.message ? html`· <q>${o.message}</q>` : ''}
  </p>`;
}

function historyTable(detail: InstallationDetail, now: Date): Html {
  if (detail.history.length === 0) return html`<p>No versions recorded yet.</p>`;
  return scrollTable(
    ['When', 'Version', 'Stage', 'OS status', 'OS message'],
    detail.history.map(
      (h) =>
        html`<tr data-stage="${h.stage}">
          <td>${when(h.at, now)}</td>
          <td>
            ${
              h.versionCode === null
                ? html`<code>${h.md5}</code>`
                : `${h.versionName ?? ''} (${h.versionCode})`
            }
          </td>
          <td>${h.stage}</td>
          <td>${h.osStatus ?? ''}</td>
          <td>${h.message ?? ''}</td>
        </tr>`,
    ),
  );
}

function reportsTable(base: string, detail: InstallationDetail, now: Date): Html {
  if (detail.reports.length === 0) return html`<p>No crash reports.</p>`;
  return scrollTable(
    ['When', 'Report', 'Kind', 'Version', 'Issue'],
    detail.reports.map(
      (r) =>
        html`<tr>
          <td>${when(r.receivedAt, now)}</td>
          <td>
            <a href="${base}/exceptions/${encodeURIComponent(r.id)}"><code>${r.title}</code></a>
          </td>
          <td>${r.handled ? 'handled' : 'unhandled'}</td>
          <td>${r.version}</td>
          <td><a href="${base}/exceptions/${r.fingerprint}">all of this issue</a></td>
        </tr>`,
    ),
  );
}

export function installationPage(
  viewer: Viewer,
  app: AppDoc,
  view: { detail: InstallationDetail; apks: readonly ApkDoc[]; now: Date },
): string {
  const { detail, apks, now } = view;
  const i = detail.installation;
  const base = `/ui/apps/${encodeURIComponent(app.package)}`;
  return appLayout(
    viewer,
    app,
    'installations',
    html`<p><a href="${base}/installations">All installations</a></p>
      <h2>Installation <code>${i.deviceId}</code></h2>
      <dl class="facts">
        <dt>Status</dt>
        <dd>${statusCell(i)}</dd>
        <dt>Last seen</dt>
        <dd>${when(i.lastSeenAt, now)}</dd>
        <dt>Registered</dt>
        <dd>${when(i.registeredAt, now)}</dd>
        <dt>Running</dt>
        <dd>${versionOf(apks, i.installedMd5)}</dd>
        <dt>Pending</dt>
        <dd>
          ${i.ahead ? 'nothing: ahead of the APK it would be offered' : versionOf(apks, i.pendingApkId)}
        </dd>
        <dt>Channel</dt>
        <dd>
          ${i.channel === 'pushlink' ? `PushLink SDK ${i.plVersion ?? '?'}` : 'apkrelay (SSE)'}
        </dd>
        <dt>Device</dt>
        <dd>
          ${[i.device.brand, i.device.model, i.device.osVersion].filter(Boolean).join(' ') || '—'}
        </dd>
        <dt>Metadata</dt>
        <dd>${i.metadata.map((m) => `${m.key}=${m.value}`).join(', ') || '—'}</dd>
      </dl>
      <h3>Last install</h3>
      ${lastInstall(i, now)}
      <h3>History</h3>
      ${historyTable(detail, now)}
      <h3>Crash reports</h3>
      ${reportsTable(base, detail, now)}`,
  );
}
