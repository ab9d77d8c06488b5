/**
 * The account page's "Keys and tokens" section (docs/keys.md): device keys and CI tokens with their
 * name, apps, creation, last use and revocation; the form creating one; the account key's
 * device-only switch. A new key's secret is shown once, on the page answering its creation.
 */
import type { AccessKeyView } from '../../shared/accounts/access-keys';
import { html, type Html } from '../web/html';
import { when as whenAt } from '../web/time';
import { may, type Viewer } from '../web/views';
import { scrollTable } from '../web/table';

export interface KeysState {
  readonly keys: readonly AccessKeyView[];
  readonly deviceOnly: boolean;
  /** The request's time: what the page's relative times count from. */
  readonly now: Date;
  /** The secret of the key just created: shown this once. */
  readonly created?: { readonly name: string; readonly secret: string } | null;
}

const KIND_LABEL = { 'device-key': 'Device key', 'ci-token': 'CI token' } as const;

/** Revoked when, or the form revoking it (for whoever may manage keys). */
function revokeCell(viewer: Viewer, key: AccessKeyView, now: Date): Html | string {
  if (key.revokedAt) return html`revoked ${whenAt(key.revokedAt, now)}`;
  if (!may(viewer, 'manage')) return '';
  return html`<form method="post" action="/ui/account/keys/${key.id}/revoke">
    <input type="hidden" name="_csrf" value="${viewer.csrf}" />
    <button type="submit">Revoke</button>
  </form>`;
}

function keyRow(viewer: Viewer, key: AccessKeyView, now: Date): Html {
  const revoke = revokeCell(viewer, key, now);
  const when = (iso: string | null) => (iso ? whenAt(iso, now) : '—');
  return html`<tr>
    <td>${key.name}</td>
    <td>${KIND_LABEL[key.kind]}</td>
    <td>${key.apps.join(', ')}</td>
    <td>${when(key.createdAt)}${key.createdBy ? html`<br />made by ${key.createdBy.name}` : ''}</td>
    <td>${when(key.lastUsedAt)}</td>
    <td>${revoke}</td>
  </tr>`;
}

function createForm(viewer: Viewer): Html {
  return html`<form class="stack" method="post" action="/ui/account/keys">
    <input type="hidden" name="_csrf" value="${viewer.csrf}" />
    <label for="key-kind">Kind</label>
    <select id="key-kind" name="kind">
      <option value="device-key">Device key (device routes of its apps)</option>
      <option value="ci-token">CI token (upload and make current, its apps)</option>
    </select>
    <label for="key-name">Name</label>
    <input id="key-name" name="name" maxlength="100" required />
    <label for="key-apps">Apps (package names, separated by spaces or commas)</label>
    <input id="key-apps" name="apps" required />
    <button type="submit">Create</button>
  </form>`;
}

function restrictionForm(viewer: Viewer, deviceOnly: boolean): Html {
  return html`<form class="stack" method="post" action="/ui/account/api-key-restriction">
    <input type="hidden" name="_csrf" value="${viewer.csrf}" />
    <input type="hidden" name="deviceOnly" value="${deviceOnly ? 'false' : 'true'}" />
    <p>
      The account API key is
      ${deviceOnly ? 'restricted to the device routes' : 'accepted by every route'}.
    </p>
    <button type="submit">
      ${deviceOnly ? 'Lift the restriction' : 'Restrict the API key to device routes'}
    </button>
  </form>`;
}

export function keysSection(viewer: Viewer, state: KeysState): Html {
  const created = state.created
    ? html`<p class="notice" role="status">
        New key “${state.created.name}”: <code>${state.created.secret}</code> — copy it now, it is
        not shown again.
      </p>`
    : '';
  const table = state.keys.length
    ? scrollTable(
        ['Name', 'Kind', 'Apps', 'Created', 'Last use', ''],
        state.keys.map((k) => keyRow(viewer, k, state.now)),
        { class: 'keys' },
      )
    : html`<p>No device key or CI token yet.</p>`;
  return html`<h2>Keys and tokens</h2>
    ${created}
    <p>
      Device keys go in apps in place of the account key; CI tokens in build pipelines. Both are
      limited to the apps they name.
    </p>
    ${table} ${may(viewer, 'manage') ? createForm(viewer) : ''}
    ${
      viewer.apiKey === null
        ? ''
        : html`<h2>Account API key</h2>
            ${restrictionForm(viewer, state.deviceOnly)}`
    }`;
}
