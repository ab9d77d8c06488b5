/** Page layout, sign-up / login pages and the apps list of the web administration. */
import { scopesOf, type Scope } from '../../shared/accounts/principal';
import type { Account } from '../../shared/accounts/types';
import { apiKeyReveal } from './api-key';
import { html, type Html } from './html';
import type { WebUser } from './sessions';
import { fleetCard, type FleetRow } from '../apps/fleet-view';

export interface Viewer {
  readonly account: Account;
  /** Who is signed in, with their role (docs/teams.md). */
  readonly user: WebUser;
  /** The account's API key: shown to owners only (it can do everything). */
  readonly apiKey: string | null;
  readonly csrf: string;
}

/**
 * Whether the signed-in user's role holds `scope` (shared/accounts/principal.ts): a page shows
 * only the forms its user may send. The routes' guard (page-maker.ts) decides all the same.
 */
export function may(viewer: Viewer, scope: Scope): boolean {
  return scopesOf('session', { role: viewer.user.role }).includes(scope);
}

/** A one-button form posting to `action` with the session's CSRF token. */
export function postButton(viewer: Viewer, action: string, label: string): Html {
  return html`<form class="inline" method="post" action="${action}">
    <input type="hidden" name="_csrf" value="${viewer.csrf}" />
    <button type="submit">${label}</button>
  </form>`;
}

/** `signUpLink`: whether the anonymous header offers sign-up (false when SIGNUP=closed). */
export function layout(
  title: string,
  viewer: Viewer | null,
  body: Html,
  signUpLink = true,
): string {
  const nav = viewer
    ? html`<a href="/ui/apps">Apps</a>
        <a href="/ui/audit">Audit log</a>
        <a href="/ui/webhooks">Webhooks</a>
        <a href="/ui/members">Members</a>
        <a class="who" href="/ui/account">${viewer.user.email}</a>
        ${
          viewer.apiKey === null
            ? html`<span class="role">${viewer.user.role}</span>`
            : apiKeyReveal(viewer.apiKey)
        }
        <form class="inline" method="post" action="/ui/logout">
          <input type="hidden" name="_csrf" value="${viewer.csrf}" />
          <button type="submit">Log out</button>
        </form>`
    : html`<a href="/ui/login">Log in</a>
        ${signUpLink ? html`<a href="/ui/signup">Sign up</a>` : ''}`;
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title} · apkrelay</title>
        <link rel="icon" href="data:," />
        <link rel="stylesheet" href="/ui/style.css" />
        <script src="/ui/app.js" defer></script>
      </head>
      <body>
        <a class="skip" href="#content">Skip to content</a>
        <header>
          <a class="brand" href="/ui/apps">apkrelay</a>
          <nav aria-label="Main">${nav}</nav>
        </header>
        <main id="content" tabindex="-1">${body}</main>
      </body>
    </html>`.text;
}

export function credentialsPage(
  kind: 'signup' | 'login',
  csrf: string,
  problem: string | null,
  email = '',
  signUpOpen = true,
): string {
  const title = kind === 'signup' ? 'Sign up' : 'Log in';
  const other =
    kind === 'signup'
      ? html`<p>Have an account? <a href="/ui/login">Log in</a></p>`
      : signUpOpen
        ? html`<p>New here? <a href="/ui/signup">Sign up</a></p>`
        : '';
  return layout(
    title,
    null,
    html`<h1>${title}</h1>
      ${problem ? html`<p class="error" role="alert">${problem}</p>` : ''}
      <form class="stack" method="post" action="/ui/${kind}">
        <input type="hidden" name="_csrf" value="${csrf}" />
        <label for="email">Email</label>
        <input
          id="email"
          name="email"
          type="email"
          autocomplete="username"
          required
          value="${email}"
        />
        <label for="password">Password</label>
        <input
          id="password"
          name="password"
          type="password"
          autocomplete="${kind === 'signup' ? 'new-password' : 'current-password'}"
          minlength="8"
          required
        />
        <button type="submit">${title}</button>
      </form>
      ${other}`,
    signUpOpen,
  );
}

export function uploadForm(viewer: Viewer, action: string): Html {
  return html`<form class="stack" method="post" action="${action}" enctype="multipart/form-data">
    <input type="hidden" name="_csrf" value="${viewer.csrf}" />
    <label for="apk">APK file</label>
    <input
      id="apk"
      name="apk"
      type="file"
      accept=".apk,application/vnd.android.package-archive"
      required
    />
    <label for="whatsnew">Release text</label>
    <input id="whatsnew" name="whatsnew" type="text" maxlength="2000" />
    <label><input name="current" type="checkbox" value="true" /> Make it current</label>
    <button type="submit">Upload</button>
  </form>`;
}

/** One app of the apps list: its fleet at a glance (api/apps/fleet.ts). */
export type AppRow = FleetRow;

export function appsPage(viewer: Viewer, apps: readonly AppRow[], exceptionLimit: number): string {
  const plan = viewer.account.plan.installations;
  const cards = apps.map((a) => fleetCard(a, plan, exceptionLimit));
  return layout(
    'Apps',
    viewer,
    html`<h1>Apps</h1>
      ${
        apps.length === 0
          ? html`<p>No apps yet${may(viewer, 'upload') ? ': upload a first APK below' : ''}.</p>`
          : html`<div class="fleet">${cards}</div>`
      }
      ${
        may(viewer, 'upload')
          ? html`<h2>Upload an APK</h2>
              ${uploadForm(viewer, '/ui/apks')}`
          : ''
      }
      ${
        viewer.apiKey === null
          ? ''
          : html`<h2>Regenerate the API key</h2>
              <form class="stack" method="post" action="/ui/api-key">
                <input type="hidden" name="_csrf" value="${viewer.csrf}" />
                <label
                  ><input name="confirm" type="checkbox" value="yes" required /> I understand that
                  the current key stops working at once</label
                >
                <button type="submit">Regenerate key</button>
              </form>`
      }`,
  );
}

export function messagePage(viewer: Viewer | null, title: string, message: string): string {
  return layout(
    title,
    viewer,
    html`<h1>${title}</h1>
      <p>${message}</p>
      <p><a href="/ui/apps">Back to the apps</a></p>`,
  );
}
