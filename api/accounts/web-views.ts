/**
 * The account page of the web administration: the signed-in user's password change, "sign out
 * everywhere" and second factor (totp-views.ts); the account's device keys and CI tokens
 * (key-views.ts).
 */
import { keysSection, type KeysState } from './key-views';
import { html } from '../web/html';
import { totpSection } from './totp-views';
import { layout, type Viewer } from '../web/views';

export interface AccountPageState {
  /** Shown as a refusal (role=alert). */
  readonly problem?: string | null;
  /** Shown after a change that went through. */
  readonly notice?: string | null;
  /** Device keys, CI tokens and the account key's switch; absent: the section is left out. */
  readonly keys?: KeysState;
  /** Whether the user's second factor is on; absent: the section is left out. */
  readonly totp?: boolean;
}

function passwordForm(viewer: Viewer) {
  const field = (id: string, label: string, autocomplete: string) =>
    html`<label for="${id}">${label}</label>
      <input
        id="${id}"
        name="${id}"
        type="password"
        autocomplete="${autocomplete}"
        minlength="${id === 'current' ? 1 : 8}"
        required
      />`;
  return html`<form class="stack" method="post" action="/ui/account/password">
    <input type="hidden" name="_csrf" value="${viewer.csrf}" />
    ${field('current', 'Current password', 'current-password')}
    ${field('password', 'New password (8 to 1024 characters)', 'new-password')}
    ${field('confirm', 'New password again', 'new-password')}
    <button type="submit">Change the password</button>
  </form>`;
}

export function accountPage(viewer: Viewer, state: AccountPageState = {}): string {
  return layout(
    'Account',
    viewer,
    html`<h1>Account</h1>
      ${state.notice ? html`<p class="notice" role="status">${state.notice}</p>` : ''}
      ${state.problem ? html`<p class="error" role="alert">${state.problem}</p>` : ''}
      <h2>Change the password</h2>
      <p>Every other session of yours is signed out; this one stays.</p>
      ${passwordForm(viewer)}
      <h2>Sign out everywhere</h2>
      <p>Ends every session of yours in every browser, this one included.</p>
      <form class="stack" method="post" action="/ui/account/sign-out-everywhere">
        <input type="hidden" name="_csrf" value="${viewer.csrf}" />
        <button type="submit">Sign out everywhere</button>
      </form>
      ${state.totp === undefined ? '' : totpSection(viewer, state.totp)}
      ${state.keys ? keysSection(viewer, state.keys) : ''}`,
  );
}
