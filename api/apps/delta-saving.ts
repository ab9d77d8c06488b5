/**
 * What delta patches saved on one release, as the APKs tab shows it under the funnel: "saved
 * 12.3 MB (71 %) by deltas", against every reported update of the release coming whole
 * (shared/funnel/transfers.ts). Nothing when no update came as a patch.
 */
import { deltaSaving, type TransferSummary } from '../../shared/funnel/transfers';
import { figureText, percentText } from '../web/charts/figure';
import { html, type Html } from '../web/html';

export function deltaSavingLine(summary: TransferSummary | undefined, size: number): Html | string {
  const saving = summary ? deltaSaving(summary, size) : null;
  if (!saving) return '';
  const megabytes = figureText(saving.saved / 1e6, 3);
  const share = percentText(saving.saved, saving.whole);
  return html`<p class="delta-saving">saved ${megabytes} MB (${share}) by deltas</p>`;
}
