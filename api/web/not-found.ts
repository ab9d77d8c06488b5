/**
 * The web administration's 404: every unknown `/ui` path on the admin host gets a page in the
 * layout (the header of whoever is signed in, else the anonymous one) with a link home, status
 * 404, and the pages' secure headers; the JSON API keeps its own 404.
 */
import type { RequestHandler } from 'express';
import type { ApiDeps } from '../deps';
import { html } from './html';
import { secureHeaders } from './page-maker';
import { findSession } from './sessions';
import { layout, type Viewer } from './views';

export function notFoundPage(viewer: Viewer | null, path: string): string {
  return layout(
    'Not found',
    viewer,
    html`<h1>Page not found</h1>
      <p class="not-found">There is no page at <code>${path}</code>.</p>
      <p><a href="${viewer ? '/ui/apps' : '/ui/login'}">Back to the apps</a></p>`,
  );
}

/** Mounted on `/ui` after every route of the admin host. */
export function webNotFound(deps: ApiDeps): RequestHandler[] {
  const page: RequestHandler = async (req, res) => {
    const session = await findSession(deps, req);
    const viewer: Viewer | null = session && {
      account: session.account,
      user: session.user,
      csrf: session.csrf,
      apiKey:
        session.user.role === 'owner' ? await deps.accounts.revealApiKey(session.account.id) : null,
    };
    res
      .status(404)
      .type('text/html; charset=utf-8')
      .send(notFoundPage(viewer, req.originalUrl.split('?')[0] ?? ''));
  };
  return [secureHeaders, page];
}
