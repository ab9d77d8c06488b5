/**
 * Sending one case of the matrix over a real socket, and reading the reply as allow or as one kind
 * of denial. A reply that is neither (a 400, a 409, a 500, a 429) is `unclassified`: the case did
 * not test access and fails the matrix, so a wrong request cannot pass as a denial.
 */
import { request as httpsRequest } from 'node:https';
import { collectReply, type Reply } from '../../helpers/http';
import { multipartBody, type Part } from '../../helpers/multipart';
import type { Outcome } from './roles';

export type Verdict = Outcome | 'unclassified';

export interface Call {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path and query on the host under test. */
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly json?: unknown;
  readonly form?: Readonly<Record<string, string>> | URLSearchParams;
  readonly multipart?: readonly Part[];
  /** An event stream: the reply is judged on its head, then the connection is dropped. */
  readonly stream?: boolean;
}

export type Judge = (reply: Reply) => Verdict;

export function send(base: string, ca: string, call: Call): Promise<Reply> {
  const headers: Record<string, string> = { ...call.headers };
  let body: Buffer | undefined;
  if (call.json !== undefined) {
    body = Buffer.from(JSON.stringify(call.json));
    headers['content-type'] = 'application/json';
  } else if (call.form !== undefined) {
    body = Buffer.from(new URLSearchParams(call.form).toString());
    headers['content-type'] = 'application/x-www-form-urlencoded';
  } else if (call.multipart !== undefined) {
    const built = multipartBody(call.multipart);
    body = built.body;
    headers['content-type'] = built.contentType;
  }
  if (body !== undefined) headers['content-length'] = String(body.length);
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      `${base}${call.path}`,
      { method: call.method, headers, ca, agent: false },
      (res) => {
        if (call.stream && res.statusCode === 200) {
          const head: Reply = {
            status: 200,
            headers: res.headers,
            body: Buffer.alloc(0),
            text: '',
            json: () => ({}) as never,
          };
          res.destroy();
          req.destroy();
          resolve(head);
          return;
        }
        void collectReply(res).then(resolve, reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** JSON API: 2xx allows; 401, 403 and 404 are the three denials. */
export const jsonJudge: Judge = (r) => {
  if (r.status >= 200 && r.status < 300) return 'allow';
  if (r.status === 401) return 'unauthenticated';
  if (r.status === 403) return 'forbidden';
  if (r.status === 404) return 'notFound';
  return 'unclassified';
};

/**
 * Rollout routes: as the JSON API, and a 409 of the rollout state machine (one is already active,
 * or the action does not apply now) is an allowed caller reaching A's rollout: only a caller that
 * may see the rollout can be told its state.
 */
export const rolloutJudge: Judge = (r) => {
  const code = (() => {
    try {
      return (JSON.parse(r.text) as { error?: { code?: string } }).error?.code;
    } catch {
      return undefined;
    }
  })();
  if (r.status === 409 && (code === 'ROLLOUT_ACTIVE' || code === 'ROLLOUT_STATE_CONFLICT')) {
    return 'allow';
  }
  return jsonJudge(r);
};

/**
 * The 409 texts of the rollout state machine that a Rollouts form shows: ROLLOUT_ACTIVE
 * (shared/errors.ts) and ROLLOUT_STATE_CONFLICT as `transition` words it
 * (shared/rollouts/rollout.ts).
 */
const ROLLOUT_REFUSALS = [
  /A rollout of this app is running or paused: halt or complete it first\./,
  /cannot (pause|resume|advance|complete|halt) a (running|paused|halted|completed) rollout/,
];

/**
 * The Rollouts tab's forms: as any form, and a 409 "Refused" page of the rollout state machine
 * (a rollout is active, or its state does not allow the action) is an allowed caller reaching
 * A's rollout, as for rolloutJudge. Any other 409 is unclassified.
 */
export const webRolloutJudge: Judge = (r) =>
  r.status === 409 && ROLLOUT_REFUSALS.some((t) => t.test(r.text)) ? 'allow' : formJudge(r);

/**
 * The queue board: as the JSON API, and 405 is its refusal of a write
 * (api/operations/ops-board.ts).
 */
export const boardJudge: Judge = (r) => (r.status === 405 ? 'methodNotAllowed' : jsonJudge(r));

/** Public pages and assets: any success or redirect. */
export const publicJudge: Judge = (r) =>
  r.status >= 200 && r.status < 400 ? 'allow' : jsonJudge(r);

/** A signed-in page (GET): the page, or the redirect to the login page, or the 404 page. */
export const pageJudge: Judge = (r) => {
  if (r.status === 303 && r.headers.location === '/ui/login') return 'unauthenticated';
  if (r.status === 200) return 'allow';
  if (r.status === 404) return 'notFound';
  return 'unclassified';
};

/** A signed-in form (POST): done (redirect elsewhere than the login page, or a 201 page). */
export const formJudge: Judge = (r) => {
  if (r.status === 403 && r.text === 'Sign in first.') return 'unauthenticated';
  if (r.status === 403) return 'forbidden';
  if (r.status === 303 && r.headers.location !== '/ui/login') return 'allow';
  if (r.status === 201) return 'allow';
  if (r.status === 404) return 'notFound';
  return 'unclassified';
};

/** `POST /ui/logout`: back to the login page with the session cookie cleared. */
export const logoutJudge: Judge = (r) => {
  const cookies = [r.headers['set-cookie'] ?? []].flat();
  const cleared = cookies.some((c) => /^__Host-apkrelay_session=;/.test(c));
  if (r.status === 303 && r.headers.location === '/ui/login' && cleared) return 'allow';
  return formJudge(r);
};

/**
 * A web upload: a verdict page (accepted: redirect; refused by the upload rules: 409/422 "Upload
 * refused") means the upload was taken for this account.
 */
export const webUploadJudge: Judge = (r) => {
  if ((r.status === 409 || r.status === 422) && r.text.includes('Upload refused')) return 'allow';
  return formJudge(r);
};

/** `POST /ui/login`: a session (redirect to the apps) or "wrong email or password". */
export const loginJudge: Judge = (r) => {
  if (r.status === 303 && r.headers.location === '/ui/apps') return 'allow';
  if (r.status === 401) return 'unauthenticated';
  if (r.status === 403) return 'forbidden';
  return 'unclassified';
};

/** The PushLink upload: any verdict of the upload rules means the key was taken. */
export const legacyUploadJudge: Judge = (r) => {
  if (r.status === 401 && r.text === 'deploy fails, Invalid Api Key') return 'unauthenticated';
  // A valid key of a kind (or app) that may not upload (docs/keys.md).
  if (r.status === 403 && r.text.startsWith('deploy fails, ')) return 'forbidden';
  if ([200, 202, 409, 422].includes(r.status) && r.text.startsWith('deploy')) return 'allow';
  return 'unclassified';
};

/** `GET /download`: the APK (200/206), or the plain-text refusals. */
export const downloadJudge: Judge = (r) => {
  const apk = r.headers['content-type'] === 'application/vnd.android.package-archive';
  if ((r.status === 200 || r.status === 206) && apk) return 'allow';
  if (r.status === 401 && r.text.startsWith('Download failed: Invalid API Key')) {
    return 'unauthenticated';
  }
  if (r.status === 404 && r.text.startsWith('Download failed: Invalid Package')) return 'notFound';
  if (r.status === 403 && r.text.startsWith('Download failed: This key or token')) {
    return 'forbidden';
  }
  return 'unclassified';
};

/** `/download/delta`: a patch, or "no patch" once the key and the app are accepted. */
export const deltaJudge: Judge = (r) => {
  const patch = r.headers['content-type'] === 'application/vnd.apkrelay.delta';
  if ((r.status === 200 || r.status === 206) && patch) return 'allow';
  if (r.status === 404 && r.text === 'Delta not available.') return 'allow';
  return downloadJudge(r);
};

/** The PushLink exception form answers 200 whatever the verdict: the text says which. */
export const legacyExceptionJudge: Judge = (r) => {
  if (r.status !== 200) return 'unclassified';
  if (r.text === 'Exception sent.') return 'allow';
  if (r.text.includes('Invalid API Key')) return 'unauthenticated';
  if (r.text.includes('Invalid Package')) return 'notFound';
  if (/this (device )?key (may not|is not valid)/.test(r.text)) return 'forbidden';
  return 'unclassified';
};

/** The push stream: an event stream, or the plain-text refusals. */
export const streamJudge: Judge = (r) => {
  if (r.status === 200 && /^text\/event-stream/.test(r.headers['content-type'] ?? '')) {
    return 'allow';
  }
  return r.status === 200 ? 'unclassified' : jsonJudge(r);
};

/** A download link (no credential by design): the APK or a QR code. */
export const linkJudge: Judge = (r) =>
  r.status === 200 &&
  /^(application\/vnd\.android\.package-archive|image\/svg\+xml|image\/png)/.test(
    r.headers['content-type'] ?? '',
  )
    ? 'allow'
    : jsonJudge(r);
