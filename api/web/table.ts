/**
 * A data table of the web administration: column headings (`''`: an unnamed column) and rows,
 * inside the scrolling
 * wrapper (`div.table-scroll`) so that a wide table scrolls instead of widening the page.
 */
import { html, type Html, type Value } from './html';

export function scrollTable(
  headings: readonly string[],
  rows: Value,
  attributes: { readonly class?: string; readonly tally?: string } = {},
): Html {
  return html`<div class="table-scroll">
    <table
      ${attributes.class ? html`class="${attributes.class}"` : ''}
      ${attributes.tally ? html`data-tally="${attributes.tally}"` : ''}
    >
      <thead>
        <tr>
          ${headings.map((h) => html`<th scope="col">${h}</th>`)}
        </tr>
      </thead>
      <tbody>
        ${rows}
      </tbody>
    </table>
  </div>`;
}
