/**
 * The app page's version adoption chart: an SVG drawn on the server (no script), one stacked bar
 * per point (oldest left, the latest at the right edge and labelled "now" with its total), one
 * colour per version, and the latest point's numbers as a table. A point's slot is at most
 * SLOT_MAX wide: a new app's one or two points are bars of normal width, not blocks filling the plot.
 */
import type { AdoptionPoint, VersionCount } from '../../shared/adoption/points';
import { html, type Html } from '../web/html';

export const CHART = { width: 640, height: 200, left: 40, bottom: 20, top: 10 } as const;
/** The widest slot a point gets (90 % of it drawn). */
export const SLOT_MAX = 60;
const PALETTE = ['#2b6cb0', '#dd6b20', '#38a169', '#805ad5', '#d53f8c', '#718096'];

/** A version's label: "name (code)", or a short hash when it is of no uploaded APK. */
export function versionLabel(v: Pick<VersionCount, 'md5' | 'versionCode' | 'versionName'>) {
  if (v.versionCode !== null) return `${v.versionName ?? ''} (${v.versionCode})`.trim();
  return v.md5 === null ? 'no hash reported' : `unknown ${v.md5.slice(0, 8)}`;
}

const keyOf = (v: VersionCount) => String(v.md5);

/** Colours by version, in the order versions first appear from the latest point back. */
function colours(points: readonly AdoptionPoint[]): Map<string, string> {
  const map = new Map<string, string>();
  for (const p of [...points].reverse())
    for (const v of p.versions)
      if (!map.has(keyOf(v))) map.set(keyOf(v), PALETTE[Math.min(map.size, PALETTE.length - 1)]!);
  return map;
}

/** The bar of one point: its versions stacked, the first at the bottom. */
function bar(p: AdoptionPoint, x: number, w: number, scale: number, fill: Map<string, string>) {
  let y = CHART.height - CHART.bottom;
  const rects = p.versions.map((v) => {
    const h = v.count * scale;
    y -= h;
    const label = `${versionLabel(v)}: ${v.count}`;
    return html`<rect
      x="${x.toFixed(2)}"
      y="${y.toFixed(2)}"
      width="${w.toFixed(2)}"
      height="${h.toFixed(2)}"
      fill="${fill.get(keyOf(v))}"
      data-md5="${v.md5 ?? ''}"
      data-count="${v.count}"
      ><title>${label}</title></rect
    >`;
  });
  return html`<g class="point" data-at="${p.at.toISOString()}" data-total="${p.total}">
    ${rects}
  </g>`;
}

export function adoptionChart(points: readonly AdoptionPoint[]): Html {
  const latest = points[points.length - 1];
  if (!latest) return html``;
  const fill = colours(points);
  const plotW = CHART.width - CHART.left;
  const plotH = CHART.height - CHART.bottom - CHART.top;
  const max = Math.max(1, ...points.map((p) => p.total));
  const w = Math.min(SLOT_MAX, plotW / points.length);
  const xOf = (i: number) => CHART.width - (points.length - i) * w;
  const bars = points.map((p, i) => bar(p, xOf(i), w * 0.9, plotH / max, fill));
  const labelX = (xOf(points.length - 1) + w * 0.45).toFixed(2);
  const first = points[0]!.at.toISOString();
  return html`<figure class="adoption">
    <svg
      xmlns="http://www.w3.org/2000/svg"
      viewBox="0 0 ${CHART.width} ${CHART.height}"
      width="${CHART.width}"
      height="${CHART.height}"
      role="img"
      aria-label="Installations by version, ${first} to now"
    >
      <text x="0" y="${CHART.top + 10}" font-size="11">${max}</text>
      <text x="0" y="${CHART.height - CHART.bottom}" font-size="11">0</text>
      ${bars}
      <text
        class="point-label"
        x="${labelX}"
        y="${CHART.height - 5}"
        font-size="11"
        text-anchor="middle"
      >
        ${latest.total} now
      </text>
    </svg>
    <figcaption>
      Installations seen in the previous 24 h, by version (hourly; the last bar is now).
    </figcaption>
    <table class="adoption-now">
      <caption>
        Now: ${latest.total} installations
      </caption>
      <tbody>
        ${latest.versions.map(
          (v) =>
            html`<tr data-md5="${v.md5 ?? ''}">
              <th scope="row">
                <svg width="10" height="10" aria-hidden="true">
                  <rect width="10" height="10" fill="${fill.get(keyOf(v))}" /></svg
                >${versionLabel(v)}
              </th>
              <td>${v.count}</td>
            </tr>`,
        )}
      </tbody>
    </table>
  </figure>`;
}
