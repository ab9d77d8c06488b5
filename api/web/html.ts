/**
 * HTML for the web administration: a tagged template that escapes every interpolated value unless
 * it is already `Html` (built by this template or by `raw` for trusted constant markup).
 */

export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

export type Value = Html | string | number | boolean | null | undefined | readonly Value[];

export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

function render(value: Value): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return (value as readonly Value[]).map(render).join('');
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: Value[]): Html {
  let out = strings[0] ?? '';
  values.forEach((value, i) => {
    out += render(value) + (strings[i + 1] ?? '');
  });
  return new Html(out);
}

/** Trusted constant markup only: never pass user data. */
export function raw(text: string): Html {
  return new Html(text);
}

/** A long hex digest shortened for display, the whole value in a copyable field. */
export function digest(label: string, value: string): Html {
  return html`<span class="digest"
    ><code title="${value}">${value.slice(0, 12)}…</code
    ><button type="button" class="copy" data-copy-text="${value}" aria-label="Copy ${label}">
      Copy
    </button></span
  >`;
}
