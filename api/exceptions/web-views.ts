/**
 * Exceptions in the web administration: the Exceptions tab (reports per hour with axes, the crash
 * rate of each version, the issues with their devices affected) and one report (its stack trace
 * with the app's frames told apart, its issue linked). One issue's page is in group-view.ts.
 */
import type { AppDoc } from '../../shared/catalog/types';
import type { ExceptionDoc, ExceptionGroupDoc } from '../../shared/exceptions/collections';
import type { CrashRate } from '../../shared/exceptions/crash-rates';
import { appLayout } from '../apps/web-views';
import { barChart } from '../web/charts/bar-chart';
import { figureText, percentText } from '../web/charts/figure';
import { html, type Html } from '../web/html';
import { scrollTable } from '../web/table';
import { when } from '../web/time';
import type { Viewer } from '../web/views';
import { stackTrace } from './stack-view';

/** The bars of `counts` (oldest first, one per `unit`), labelled by how long ago each starts. */
export function agoBars(counts: readonly number[], unit: 'h' | 'd') {
  return counts.map((value, i) => ({ label: `-${counts.length - i} ${unit}`, value }));
}

/** "N reports in the last 24 h; limit L (P % used); most in one hour: M." */
export function hourlySummary(counts: readonly number[], limit: number): string {
  const total = counts.reduce((a, b) => a + b, 0);
  return (
    `${total} reports in the last 24 h; limit ${limit} (${percentText(total, limit)} used); ` +
    `most in one hour: ${Math.max(0, ...counts)}.`
  );
}

/** Reports per hour (oldest first, 24 values) with axes, and the share of the 24-h limit used. */
export function hourlyChart(counts: readonly number[], limit: number): Html {
  return barChart({
    kind: 'exceptions-hourly',
    title: 'Reports per hour over the last 24 hours',
    summary: hourlySummary(counts, limit),
    bars: agoBars(counts, 'h'),
    xTitle: 'hours before now',
    yTitle: 'reports',
    labelEvery: 6,
  });
}

const rate = (n: number | null) => (n === null ? '—' : figureText(n));

/** The crash rate of each version over the window (ExceptionStats.versions). */
export function ratesTable(rates: readonly CrashRate[]): Html {
  if (rates.length === 0)
    return html`<p>No installations seen and no crashes in the last 24 h.</p>`;
  return scrollTable(
    [
      'Version',
      'Installations',
      'Installation-hours',
      'Unhandled',
      'Per installation-hour',
      'Per installation',
      'Crash-free installations',
    ],
    rates.map(
      (r) =>
        html`<tr data-version-code="${r.versionCode}">
          <td>${r.versionName ?? ''} (${r.versionCode})</td>
          <td data-col="installations">${r.installations}</td>
          <td data-col="installationHours">${figureText(r.installationHours)}</td>
          <td data-col="unhandled">${r.unhandled}</td>
          <td data-col="perInstallationHour">${rate(r.perInstallationHour)}</td>
          <td data-col="perInstallation">${rate(r.perInstallation)}</td>
          <td data-col="crashFree">
            ${r.crashFreeInstallations} of ${r.installations}
            ${r.crashFreePercent === null ? '' : `(${figureText(r.crashFreePercent)} %)`}
          </td>
        </tr>`,
    ),
    { class: 'crash-rates' },
  );
}

function entries(list: ReadonlyArray<{ key: string; value: string }>): Html {
  if (list.length === 0) return html`<p>None.</p>`;
  return html`<dl>
    ${list.map(
      (e) =>
        html`<dt>${e.key}</dt>
          <dd>${e.value}</dd>`,
    )}
  </dl>`;
}

export function reportPage(
  viewer: Viewer,
  app: AppDoc,
  view: { report: ExceptionDoc; screenshotPath: string | null; now: Date },
): string {
  const { report, screenshotPath } = view;
  const base = `/ui/apps/${encodeURIComponent(app.package)}`;
  return appLayout(
    viewer,
    app,
    'exceptions',
    html`<h2>${report.stack[0] ?? 'Exception'}</h2>
      <p>
        ${report.handled ? 'Handled' : 'Unhandled'} · version ${report.version} · device
        <a href="${base}/installations/${encodeURIComponent(report.deviceId)}"
          ><code>${report.deviceId}</code></a
        >
        · ${when(report.receivedAt, view.now)} ·
        <a href="${base}/exceptions/${report.fingerprint}">all occurrences of this issue</a>
      </p>
      <h3>Stack trace</h3>
      ${stackTrace(report.stack, app.package)}
      <h3>Metadata</h3>
      ${entries(report.metadata)}
      <h3>Extra</h3>
      ${entries(report.extra)}
      <h3>Device log</h3>
      <pre>${report.log.join('\n')}</pre>
      <h3>Screenshot</h3>
      ${
        screenshotPath
          ? html`<img class="shot" src="${screenshotPath}" alt="Screenshot of the device" />`
          : html`<p>None.</p>`
      }`,
  );
}

export interface GroupPage {
  readonly kind: '' | 'handled' | 'unhandled';
  readonly page: number;
  readonly pages: number;
  readonly total: number;
}

function groupRow(base: string, g: ExceptionGroupDoc, now: Date): Html {
  return html`<tr>
    <td>
      <a href="${base}/${g.fingerprint}"><code>${g.title}</code></a>
    </td>
    <td data-col="count">${g.count}</td>
    <td data-col="devices">${g.devices.length}</td>
    <td>${g.handledCount} handled / ${g.unhandledCount} unhandled</td>
    <td>${when(g.firstSeen, now)}</td>
    <td>${when(g.lastSeen, now)}</td>
    <td>${g.versions.join(', ')}</td>
  </tr>`;
}

function kindForm(base: string, kind: GroupPage['kind']): Html {
  return html`<form method="get" action="${base}">
    <label for="kind">Kind</label>
    <select id="kind" name="kind">
      ${(['', 'handled', 'unhandled'] as const).map(
        (k) =>
          html`<option value="${k}" ${k === kind ? html`selected` : ''}>${k || 'any'}</option>`,
      )}
    </select>
    <button type="submit">Filter</button>
  </form>`;
}

export function exceptionsTab(
  viewer: Viewer,
  app: AppDoc,
  view: {
    groups: readonly ExceptionGroupDoc[];
    chart: Html;
    rates: readonly CrashRate[];
    nav: GroupPage;
    now: Date;
  },
): string {
  const { nav } = view;
  const base = `/ui/apps/${encodeURIComponent(app.package)}/exceptions`;
  const at = (n: number) =>
    `${base}?${new URLSearchParams({ kind: nav.kind, page: String(n) }).toString()}`;
  return appLayout(
    viewer,
    app,
    'exceptions',
    html`${view.chart}
      <h2>Crash rate by version, last 24 h</h2>
      ${ratesTable(view.rates)}
      <h2>Issues</h2>
      ${kindForm(base, nav.kind)}
      <p>${nav.total} issues · page ${nav.page} of ${nav.pages}</p>
      ${scrollTable(
        ['Issue', 'Count', 'Devices affected', 'Handled', 'First seen', 'Last seen', 'Versions'],
        view.groups.map((g) => groupRow(base, g, view.now)),
        { class: 'issues' },
      )}
      <nav aria-label="Pages">
        ${nav.page > 1 ? html`<a href="${at(nav.page - 1)}">Previous</a>` : ''}
        ${nav.page < nav.pages ? html`<a href="${at(nav.page + 1)}">Next</a>` : ''}
      </nav>`,
  );
}
