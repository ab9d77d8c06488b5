/**
 * The app page's Installations tab (a summary strip of the whole fleet, filters by status, device
 * id, version and metadata, a sort, a server-paged table) and one installation's page (its state,
 * history of versions and installs, and crash reports). Plain GET forms and links: it all works
 * without JavaScript.
 */
import type { ApkDoc, AppDoc } from '../../shared/catalog/types';
import type { FleetSummary } from '../../shared/devices/fleet-summary';
import { appLayout } from '../apps/web-views';
import { percentText } from '../web/charts/figure';
import { html, type Html } from '../web/html';
import { scrollTable } from '../web/table';
import { when } from '../web/time';
import { may, type Viewer } from '../web/views';
import { DEFAULT_PAGE_SIZE, type InstallationPage, type ListingInput } from './installations-list';

type InstallationRow = InstallationPage['installations'][number];

/** An APK named by md5 or id: its version and a short md5 (the whole in the title). */
export function versionOf(apks: readonly ApkDoc[], ref: string | null): Html | string {
  if (!ref) return '—';
  const apk = apks.find((a) => a.md5 === ref || a._id.toHexString() === ref);
  if (!apk) return html`<code>${ref}</code>`;
  return html`${apk.versionName ?? ''} (${apk.versionCode})
    <code title="${apk.md5}">${apk.md5.slice(0, 8)}…</code>`;
}

/** A status dot (its word beside it, so it reads without colour) and the installation's status. */
export function statusCell(i: Pick<InstallationRow, 'status' | 'online'>): Html {
  const state = i.online ? 'online' : 'offline';
  return html`<span class="dot dot-${state}" aria-hidden="true">●</span> ${i.status} / ${state}`;
}

/** The Pending cell of a device ahead of the APK it would be offered: it is offered nothing. */
const AHEAD = html`<span
  title="Runs a higher versionCode than the current APK: offered nothing (Android refuses a downgrade)"
  >ahead</span
>`;

/** How many ahead devices the strip names before "and N more" (the JSON lists them all). */
const AHEAD_NAMED = 20;

function summaryStrip(base: string, s: FleetSummary): Html {
  const versionName = (v: FleetSummary['versions'][number]) =>
    v.versionCode === null ? 'unknown version' : `${v.versionName ?? ''} (${v.versionCode})`;
  const more = s.ahead.length - AHEAD_NAMED;
  return html`<section class="summary-strip" aria-label="Fleet summary">
    <p>
      <strong data-summary="total">${s.total}</strong> installations ·
      <span class="dot dot-online" aria-hidden="true">●</span>
      <strong data-summary="online">${s.online}</strong> online ·
      <span class="dot dot-offline" aria-hidden="true">●</span>
      <strong data-summary="offline">${s.offline}</strong> offline
    </p>
    <ul class="versions">
      ${s.versions.map(
        (v) =>
          html`<li data-version="${v.versionCode ?? 'unknown'}">
            ${
              v.versionCode === null
                ? versionName(v)
                : html`<a href="${base}?version=${v.versionCode}">${versionName(v)}</a>`
            }:
            <strong>${v.installations}</strong> (${percentText(v.installations, s.total)})
          </li>`,
      )}
    </ul>
    ${
      s.ahead.length > 0
        ? html`<p data-summary="ahead">
            Ahead of the APK they would be offered (offered nothing):
            ${s.ahead.slice(0, AHEAD_NAMED).join(', ')}${more > 0 ? ` and ${more} more` : ''}
          </p>`
        : ''
    }
  </section>`;
}

function option(value: string, label: string, chosen: string): Html {
  return html`<option value="${value}" ${value === chosen ? html`selected` : ''}>${label}</option>`;
}

function filterForm(base: string, input: ListingInput, apks: readonly ApkDoc[]): Html {
  // The app's versionCodes, and the one asked for even if no APK has it (the form keeps it).
  const asked = input.version === null ? [] : [input.version];
  const codes = [...new Set([...apks.map((a) => a.versionCode), ...asked])].sort((a, b) => b - a);
  const meta = input.meta ? `${input.meta.key}=${input.meta.value}` : '';
  return html`<form method="get" action="${base}" class="filters">
    <label for="status">Status</label>
    <select id="status" name="status">
      ${['', 'enabled', 'disabled', 'online', 'offline'].map((s) =>
        option(s, s || 'any', input.status ?? ''),
      )}
    </select>
    <label for="q">Device id starts with</label>
    <input id="q" name="q" value="${input.q}" />
    <label for="version">Version</label>
    <select id="version" name="version">
      ${option('', 'any', String(input.version ?? ''))}
      ${codes.map((c) => option(String(c), String(c), String(input.version ?? '')))}
    </select>
    <label for="meta">Metadata (key=value)</label>
    <input id="meta" name="meta" value="${meta}" placeholder="store=12" />
    <label for="sort">Sort by</label>
    <select id="sort" name="sort">
      ${option('lastSeen', 'last seen', input.sort)} ${option('version', 'version', input.sort)}
      ${option('deviceId', 'device id', input.sort)}
    </select>
    <button type="submit">Filter</button>
  </form>`;
}

/** The form that disables an enabled installation or enables a disabled one. */
function statusForm(viewer: Viewer, base: string, i: InstallationRow): Html {
  const next = i.status === 'enabled' ? 'disabled' : 'enabled';
  const verb = i.status === 'enabled' ? 'Disable' : 'Enable';
  return html`<form
    class="inline"
    method="post"
    action="${base}/${encodeURIComponent(i.deviceId)}/status"
  >
    <input type="hidden" name="_csrf" value="${viewer.csrf}" />
    <input type="hidden" name="status" value="${next}" />
    <button type="submit" aria-label="${verb} ${i.deviceId}">${verb}</button>
  </form>`;
}

interface RowContext {
  readonly viewer: Viewer;
  readonly base: string;
  readonly apks: readonly ApkDoc[];
  readonly now: Date;
}

function installationRow(c: RowContext, i: InstallationRow): Html {
  return html`<tr>
    <td><a href="${c.base}/${encodeURIComponent(i.deviceId)}">${i.deviceId}</a></td>
    <td>${statusCell(i)}</td>
    <td>${versionOf(c.apks, i.installedMd5)}</td>
    <td>${i.ahead ? AHEAD : versionOf(c.apks, i.pendingApkId)}</td>
    <td>${i.strategy ?? '—'}</td>
    <td>${i.channel === 'pushlink' ? `PushLink SDK ${i.plVersion ?? '?'}` : 'apkrelay (SSE)'}</td>
    <td>${when(i.lastSeenAt, c.now)}</td>
    <td>${[i.device.brand, i.device.model, i.device.osVersion].filter(Boolean).join(' ')}</td>
    <td>${i.metadata.map((m) => `${m.key}=${m.value}`).join(', ')}</td>
    <td>${i.location ? `${i.location.lat}, ${i.location.lon}` : '—'}</td>
    <td>${may(c.viewer, 'manage') ? statusForm(c.viewer, c.base, i) : ''}</td>
  </tr>`;
}

/** The query string of the list as asked, on another page. */
export function listQuery(input: ListingInput, page: number): string {
  const q: Record<string, string> = {
    status: input.status ?? '',
    q: input.q,
    version: input.version === null ? '' : String(input.version),
    meta: input.meta ? `${input.meta.key}=${input.meta.value}` : '',
    sort: input.sort,
    pageSize: input.pageSize === DEFAULT_PAGE_SIZE ? '' : String(input.pageSize),
    page: String(page),
  };
  return new URLSearchParams(Object.entries(q).filter(([, v]) => v !== '')).toString();
}

export function installationsTab(
  viewer: Viewer,
  app: AppDoc,
  view: { page: InstallationPage; input: ListingInput; apks: readonly ApkDoc[]; now: Date },
): string {
  const { page, input } = view;
  const base = `/ui/apps/${encodeURIComponent(app.package)}/installations`;
  const pages = Math.max(1, Math.ceil(page.total / page.pageSize));
  const at = (n: number) => `${base}?${listQuery(input, n)}`;
  const context = { viewer, base, apks: view.apks, now: view.now };
  return appLayout(
    viewer,
    app,
    'installations',
    html`${summaryStrip(base, page.summary)} ${filterForm(base, input, view.apks)}
      <p>
        <span data-list="total">${page.total}</span> installations · page ${page.page} of ${pages}
      </p>
      ${scrollTable(
        [
          'Device id',
          'Status',
          'Running (md5)',
          'Pending',
          'Strategy',
          'Channel',
          'Last seen',
          'Device',
          'Metadata',
          'Location',
          'Action',
        ],
        page.installations.map((i) => installationRow(context, i)),
      )}
      <nav aria-label="Pages">
        ${page.page > 1 ? html`<a href="${at(page.page - 1)}" rel="prev">Previous</a>` : ''}
        ${page.page < pages ? html`<a href="${at(page.page + 1)}" rel="next">Next</a>` : ''}
      </nav>`,
  );
}
