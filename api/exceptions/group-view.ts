/**
 * One issue's page (/ui/apps/{package}/exceptions/{fingerprint}): its numbers, its trend (reports
 * per hour over 24 h and per day over 30 days, with axes), the versions and devices it hit, its
 * latest stack trace (the app's frames told apart), and all its occurrences, newest first, paged
 * with previous / next links. The numbers are GET …/exception-groups/{fingerprint}'s (stats.ts).
 */
import type { AppDoc } from '../../shared/catalog/types';
import type { ExceptionDoc } from '../../shared/exceptions/collections';
import { appLayout } from '../apps/web-views';
import { barChart } from '../web/charts/bar-chart';
import { html, type Html } from '../web/html';
import { scrollTable } from '../web/table';
import { when } from '../web/time';
import type { Viewer } from '../web/views';
import type { GroupView } from './stats';
import { stackTrace } from './stack-view';
import { agoBars } from './web-views';

/** "N reports of this issue in the last 24 h; most in one hour: M." (or 30 days, one day). */
export function trendSummary(counts: readonly number[], unit: 'h' | 'd'): string {
  const total = counts.reduce((a, b) => a + b, 0);
  const span = unit === 'h' ? 'the last 24 h' : 'the last 30 days';
  return `${total} reports of this issue in ${span}; most in one ${unit === 'h' ? 'hour' : 'day'}: ${Math.max(0, ...counts)}.`;
}

function trendCharts(view: GroupView): Html {
  return html`${barChart({
    kind: 'issue-hourly',
    title: 'Reports of this issue per hour, last 24 hours',
    summary: trendSummary(view.hourly, 'h'),
    bars: agoBars(view.hourly, 'h'),
    xTitle: 'hours before now',
    yTitle: 'reports',
    labelEvery: 6,
  })}
  ${barChart({
    kind: 'issue-daily',
    title: 'Reports of this issue per day, last 30 days',
    summary: trendSummary(view.daily, 'd'),
    bars: agoBars(view.daily, 'd'),
    xTitle: 'days before now',
    yTitle: 'reports',
    labelEvery: 5,
  })}`;
}

function tallyTable(
  heading: string,
  rows: GroupView['versions'],
  cell: (name: string) => Html | string,
): Html {
  return scrollTable(
    [heading, 'Reports'],
    rows.map(
      (r) =>
        html`<tr>
          <td>${cell(r.name)}</td>
          <td>${r.reports}</td>
        </tr>`,
    ),
    { tally: heading },
  );
}

function occurrences(base: string, view: GroupView, now: Date): Html {
  const o = view.occurrences;
  const pages = Math.max(1, Math.ceil(o.total / o.pageSize));
  const at = (n: number) => `${base}/exceptions/${view.group.fingerprint}?page=${n}`;
  return html`<p>${o.total} occurrence${o.total === 1 ? '' : 's'} · page ${o.page} of ${pages}</p>
    ${scrollTable(
      ['When', 'Kind', 'Version', 'Device'],
      o.reports.map(
        (r) =>
          html`<tr>
            <td>
              <a href="${base}/exceptions/${encodeURIComponent(r.id)}"
                >${when(r.receivedAt, now)}</a
              >
            </td>
            <td>${r.handled ? 'handled' : 'unhandled'}</td>
            <td>${r.version}</td>
            <td>
              <a href="${base}/installations/${encodeURIComponent(r.deviceId)}">${r.deviceId}</a>
            </td>
          </tr>`,
      ),
      { class: 'occurrences' },
    )}
    <nav aria-label="Occurrence pages">
      ${o.page > 1 ? html`<a href="${at(o.page - 1)}" rel="prev">Previous</a>` : ''}
      ${o.page < pages ? html`<a href="${at(o.page + 1)}" rel="next">Next</a>` : ''}
    </nav>`;
}

export function groupPage(
  viewer: Viewer,
  app: AppDoc,
  view: { group: GroupView; latest: ExceptionDoc | null; now: Date },
): string {
  const g = view.group.group;
  const base = `/ui/apps/${encodeURIComponent(app.package)}`;
  const device = (id: string) =>
    html`<a href="${base}/installations/${encodeURIComponent(id)}">${id}</a>`;
  return appLayout(
    viewer,
    app,
    'exceptions',
    html`<p><a href="${base}/exceptions">All issues</a></p>
      <h2><code>${g.title}</code></h2>
      <p>
        <strong data-issue="count">${g.count}</strong> reports (${g.handled} handled, ${g.unhandled}
        unhandled) · <strong data-issue="devices">${g.devicesAffected}</strong>
        devices affected · first seen ${when(g.firstSeen, view.now)} · last seen
        ${when(g.lastSeen, view.now)}
      </p>
      <h3>Trend</h3>
      ${trendCharts(view.group)}
      <h3>Versions it hit</h3>
      ${tallyTable('Version', view.group.versions, (n) => n)}
      <h3>Devices it hit</h3>
      ${tallyTable('Device', view.group.devices, device)}
      <h3>Latest stack trace</h3>
      ${view.latest ? stackTrace(view.latest.stack, app.package) : html`<p>Not stored.</p>`}
      <h3>Occurrences</h3>
      ${occurrences(base, view.group, view.now)}`,
  );
}
