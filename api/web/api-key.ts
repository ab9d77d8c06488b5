/**
 * The account API key in the page header, masked: `••••` and its last four characters until the
 * owner opens the `<details>` (no script needed), then the whole key in a read-only field with a
 * Copy button. It is never put in a URL.
 */
import { html, type Html } from './html';

/** What the header shows of `key` before it is revealed. */
export function maskedKey(key: string): string {
  return `••••${key.slice(-4)}`;
}

export function apiKeyReveal(key: string): Html {
  return html`<details class="key">
    <summary>API key <code>${maskedKey(key)}</code> <span class="reveal">Reveal</span></summary>
    <span class="key-full">
      <label for="api-key">API key</label>
      <input id="api-key" readonly value="${key}" />
      <button type="button" data-copy="api-key">Copy</button>
    </span>
  </details>`;
}
