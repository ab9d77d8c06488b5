/**
 * The second factor's HTML (docs/teams.md): the account page's section (turn on, or off with a
 * code), the enrolment page (seed in base32, the otpauth:// URI and its QR code as a data: image,
 * the confirmation form), the recovery codes shown once when it is on, and the login's code form
 * (an authenticator code or a recovery code).
 */
import { html, type Html } from '../web/html';
import { layout, type Viewer } from '../web/views';

/** The current password, which turning the factor on or off asks (issue 31). */
function passwordField(id: string): Html {
  return html`<label for="${id}">Your password</label>
    <input id="${id}" name="password" type="password" autocomplete="current-password" required />`;
}

export function totpSection(viewer: Viewer, enabled: boolean): Html {
  const hidden = html`<input type="hidden" name="_csrf" value="${viewer.csrf}" />`;
  return html`<h2>Two-factor authentication</h2>
    ${
      enabled
        ? html`<p>On: logging in asks a code of your authenticator app after the password.</p>
            <form class="stack" method="post" action="/ui/account/totp/disable">
              ${hidden} ${passwordField('totp-off-password')}
              <label for="totp-off-code">Current code</label>
              <input
                id="totp-off-code"
                name="code"
                inputmode="numeric"
                autocomplete="one-time-code"
                pattern="[0-9 ]{6,7}"
                required
              />
              <button type="submit">Turn two-factor authentication off</button>
            </form>`
        : html`<p>Off. With it on, logging in also asks a code of an authenticator app.</p>
            <form class="stack" method="post" action="/ui/account/totp">
              ${hidden} ${passwordField('totp-on-password')}
              <button type="submit">Set up two-factor authentication</button>
            </form>`
    }`;
}

export function totpEnrolPage(
  viewer: Viewer,
  seed: { readonly base32: string; readonly uri: string; readonly qr: string },
  problem: string | null,
): string {
  return layout(
    'Two-factor authentication',
    viewer,
    html`<h1>Set up two-factor authentication</h1>
      ${problem ? html`<p class="error" role="alert">${problem}</p>` : ''}
      <p>
        Scan the code with your authenticator app, or type the key, then enter the code it shows.
      </p>
      <img
        id="totp-qr"
        src="${seed.qr}"
        alt="QR code of the authenticator key"
        width="200"
        height="200"
      />
      <p>Key: <code id="totp-secret">${seed.base32}</code></p>
      <p>URI: <code id="totp-uri">${seed.uri}</code></p>
      <form class="stack" method="post" action="/ui/account/totp/confirm">
        <input type="hidden" name="_csrf" value="${viewer.csrf}" />
        <label for="totp-code">Code</label>
        <input
          id="totp-code"
          name="code"
          inputmode="numeric"
          autocomplete="one-time-code"
          pattern="[0-9 ]{6,7}"
          required
        />
        <button type="submit">Turn it on</button>
      </form>`,
  );
}

export function totpLoginPage(csrf: string, pending: string, problem: string | null): string {
  return layout(
    'Log in',
    null,
    html`<h1>Log in: code</h1>
      ${problem ? html`<p class="error" role="alert">${problem}</p>` : ''}
      <form class="stack" method="post" action="/ui/login/totp">
        <input type="hidden" name="_csrf" value="${csrf}" />
        <input type="hidden" name="pending" value="${pending}" />
        <label for="code">Code of your authenticator app, or a recovery code</label>
        <input id="code" name="code" autocomplete="one-time-code" required autofocus />
        <button type="submit">Log in</button>
      </form>`,
  );
}

/** The factor is on: its recovery codes, shown this once. */
export function totpRecoveryPage(viewer: Viewer, codes: readonly string[]): string {
  return layout(
    'Two-factor authentication',
    viewer,
    html`<h1>Two-factor authentication is on</h1>
      <p>
        Keep these recovery codes somewhere safe: each one logs you in once in place of a code,
        should you lose your authenticator. They are shown only now.
      </p>
      <ul id="recovery-codes">
        ${codes.map((code) => html`<li><code class="recovery-code">${code}</code></li>`)}
      </ul>
      <p><a href="/ui/account">Back to your account</a></p>`,
  );
}
