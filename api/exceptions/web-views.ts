/** Exceptions in the web administration: the hourly chart of the last 24 h and one report. */
import type { AppDoc } from '../../shared/catalog/types';
import type { ExceptionDoc, ExceptionGroupDoc } from '../../shared/exceptions/collections';
import { appLayout, time } from '../apps/web-views';
import { html, type Html } from '../web/html';
import type { Viewer } from '../web/views';

const W = 24 * 14;
const H = 80;

/** Reports per hour (oldest first, 24 values) as bars, and the share of the 24-h limit used. */
export function hourlyChart(counts: readonly number[], limit: number): Html {
  const total = counts.reduce((a, b) => a + b, 0);
  const top = Math.max(1, ...counts);
  const bars = counts.map((n, i) => {
    const h = Math.round((n / top) * (H - 4));
    return html`<rect x="${i * 14 + 1}" y="${H - h}" width="12" height="${h}" fill="#3b6fd8">
      <title>${n} reports, ${24 - i} h ago</title>
    </rect>`;
  });
  const used = limit > 0 ? Math.min(1, total / limit) : 1;
  return html`<figure>
    <svg
      role="img"
      aria-label="Reports per hour over the last 24 hours"
      width="${W}"
      height="${H + 14}"
      viewBox="0 0 ${W} ${H + 14}"
    >
      <line x1="0" y1="${H}" x2="${W}" y2="${H}" stroke="#888" />
      ${bars}
      <rect x="0" y="${H + 6}" width="${W}" height="6" fill="#e3e6ec" />
      <rect
        x="0"
        y="${H + 6}"
        width="${Math.round(W * used)}"
        height="6"
        fill="${used >= 1 ? '#c0392b' : '#1f7a3a'}"
      />
    </svg>
    <figcaption>${total} reports in the last 24 h; limit ${limit} (bar: share used).</figcaption>
  </figure>`;
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
  report: ExceptionDoc,
  screenshotPath: string | null,
): string {
  return appLayout(
    viewer,
    app,
    'exceptions',
    html`<h2>${report.stack[0] ?? 'Exception'}</h2>
      <p>
        ${report.handled ? 'Handled' : 'Unhandled'} · version ${report.version} · device
        <code>${report.deviceId}</code> · ${time(report.receivedAt)}
      </p>
      <h3>Stack trace</h3>
      <pre>${report.stack.join('\n')}</pre>
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

export function exceptionsTab(
  viewer: Viewer,
  app: AppDoc,
  groups: readonly ExceptionGroupDoc[],
  chart: Html,
  nav: GroupPage,
): string {
  const base = `/ui/apps/${encodeURIComponent(app.package)}/exceptions`;
  const at = (n: number) =>
    `${base}?${new URLSearchParams({ kind: nav.kind, page: String(n) }).toString()}`;
  const rows = groups.map(
    (g) =>
      html`<tr>
        <td>
          <a href="${base}/${encodeURIComponent(g.lastReportId)}"><code>${g.title}</code></a>
        </td>
        <td>${g.count}</td>
        <td>${g.handledCount} handled / ${g.unhandledCount} unhandled</td>
        <td>${time(g.firstSeen)}</td>
        <td>${time(g.lastSeen)}</td>
        <td>${g.versions.join(', ')}</td>
      </tr>`,
  );
  return appLayout(
    viewer,
    app,
    'exceptions',
    html`${chart}
      <form method="get" action="${base}">
        <label for="kind">Kind</label>
        <select id="kind" name="kind">
          ${(['', 'handled', 'unhandled'] as const).map(
            (k) =>
              html`<option value="${k}" ${k === nav.kind ? html`selected` : ''}>
                ${k || 'any'}
              </option>`,
          )}
        </select>
        <button type="submit">Filter</button>
      </form>
      <p>${nav.total} issues · page ${nav.page} of ${nav.pages}</p>
      <table>
        <thead>
          <tr>
            <th scope="col">Issue</th>
            <th scope="col">Count</th>
            <th scope="col">Handled</th>
            <th scope="col">First seen</th>
            <th scope="col">Last seen</th>
            <th scope="col">Versions</th>
          </tr>
        </thead>
        <tbody>
          ${rows}
        </tbody>
      </table>
      <nav aria-label="Pages">
        ${nav.page > 1 ? html`<a href="${at(nav.page - 1)}">Previous</a>` : ''}
        ${nav.page < nav.pages ? html`<a href="${at(nav.page + 1)}">Next</a>` : ''}
      </nav>`,
  );
}
