/**
 * Exceptions: the PushLink-compatible `POST /exception` (form; plain-text verdicts, HTTP 200), the
 * JSON `POST /api/v2/exceptions` (Bearer API key; `{status, reason, message, budget}` with the
 * reason's status), both on every host devices reach (admin, web, push), and the owner's views
 * (admin host): grouped issues, one report, its screenshot. The intake is built once, in
 * api/main.ts (`deps.exceptions`); these handlers parse, ask it, and map its verdict.
 */
import type { Request, Response } from 'express';
import { findApp } from '../../shared/catalog/queries';
import { AppError, ERRORS } from '../../shared/errors';
import { parseExceptionForm } from '../../shared/exceptions/form';
import { latestGroups, readWhole, reportOfPackage } from '../../shared/exceptions/owner-queries';
import { presentGroup, presentReport } from '../../shared/exceptions/present';
import { ReportInvalid, type ReportFields } from '../../shared/exceptions/report';
import type { Budget } from '../../shared/exceptions/sliding-window';
import { invalidReportText, type Verdict } from '../../shared/exceptions/verdicts';
import { bearerAuth, currentAccount, isAuthRateLimited, noteAuthFailure } from '../auth';
import type { ApiDeps } from '../deps';
import { formIsUtf8 } from './form-utf8';
import { judgeReport } from './judge';
import { jsonReportFields } from './json-report';
import { readBody } from './read-body';
import { isDependencyOutage } from '../http-errors';
import {
  exceptionStatsContract,
  legacyExceptionContract,
  listGroupsContract,
  showGroupContract,
  reportExceptionContract,
  screenshotContract,
  showReportContract,
} from './contracts';
import type { RouteContract } from '../route-contract';
import { appOf } from '../owned-app';
import { exceptionStats, groupView } from './stats';
import { DEVICE_HOSTS, type Route } from '../route-table';
import { sendText } from '../text-reply';

export const DEFAULT_MAX_EXCEPTION_BYTES = 2 * 1024 * 1024;

const UNAVAILABLE_TEXT = 'Exception not sent: the service is unavailable; retry later.';
const THROTTLED_TEXT = 'Exception not sent: too many failed API key attempts; retry later.';

type Handler = (req: Request, res: Response) => Promise<void>;

const maxBytesOf = (deps: ApiDeps) => deps.limits.maxExceptionBytes ?? DEFAULT_MAX_EXCEPTION_BYTES;

function budgetHeaders(res: Response, budget: Budget | null, nowMs: number): void {
  if (!budget) return;
  res.setHeader('X-Exception-Limit', String(budget.limit));
  res.setHeader('X-Exception-Remaining', String(budget.remaining));
  if (budget.freesAt) {
    res.setHeader('X-Exception-Frees-At', budget.freesAt.toISOString());
    res.setHeader(
      'Retry-After',
      String(Math.max(1, Math.ceil((budget.freesAt.getTime() - nowMs) / 1000))),
    );
  }
}

function verdictJson(verdict: Verdict) {
  const budget = verdict.budget && {
    limit: verdict.budget.limit,
    remaining: verdict.budget.remaining,
    freesAt: verdict.budget.freesAt?.toISOString() ?? null,
  };
  return verdict.status === 'REGISTERED'
    ? {
        status: verdict.status,
        reason: null,
        message: verdict.message,
        reportId: verdict.reportId,
        resent: verdict.resent,
        budget,
      }
    : { status: verdict.status, reason: verdict.reason, message: verdict.message, budget };
}

/** A report refused for its key is a failed authentication (throws past the limits). */
async function countKeyFailure(
  deps: ApiDeps,
  req: Request,
  res: Response,
  apiKey: string | undefined,
  verdict: Verdict,
): Promise<void> {
  if (apiKey && verdict.status === 'LOST' && verdict.reason === 'EXCEPTION_API_KEY_INVALID') {
    await noteAuthFailure(deps, req, res, apiKey);
  }
}

/** The form's verdict; null when the reply (429 or 503) is already sent. */
async function formVerdict(
  deps: ApiDeps,
  req: Request,
  res: Response,
  form: ReturnType<typeof parseExceptionForm>,
): Promise<Verdict | null> {
  try {
    const verdict = await judgeReport(deps, form.apiKey, form.fields);
    await countKeyFailure(deps, req, res, form.apiKey, verdict);
    return verdict;
  } catch (err) {
    if (isAuthRateLimited(err)) {
      sendText(res, 429, THROTTLED_TEXT);
      return null;
    }
    if (!isDependencyOutage(err) && !(err instanceof AppError && err.status === 503)) throw err;
    res.setHeader('Retry-After', '5');
    sendText(res, 503, UNAVAILABLE_TEXT);
    return null;
  }
}

/** `POST /exception`: PushLink's form, answered in plain text (200 unless 429 or 503). */
export function legacyException(deps: ApiDeps): Handler {
  return async (req, res) => {
    const maxBytes = maxBytesOf(deps);
    const read = await readBody(req, maxBytes);
    if (!read.ok) {
      if (read.reason === 'aborted') return;
      sendText(res, 200, invalidReportText(`The report is larger than ${maxBytes} bytes`));
      return;
    }
    if (!formIsUtf8(read.body)) {
      sendText(res, 200, invalidReportText('The report is not valid UTF-8'));
      return;
    }
    const verdict = await formVerdict(
      deps,
      req,
      res,
      parseExceptionForm(read.body.toString('utf8')),
    );
    if (!verdict) return;
    budgetHeaders(res, verdict.budget, deps.now().getTime());
    sendText(res, 200, verdict.message);
  };
}

function jsonFields(body: unknown): ReportFields {
  try {
    return jsonReportFields(body);
  } catch (err) {
    if (err instanceof ReportInvalid)
      throw new AppError('VALIDATION_FAILED', { message: err.message });
    throw err;
  }
}

/** `POST /api/v2/exceptions`: JSON, Bearer API key; 202 REGISTERED or the reason's status. */
export function jsonException(deps: ApiDeps): Handler {
  return async (req, res) => {
    const header = /^Bearer\s+(\S+)\s*$/i.exec(req.header('authorization') ?? '')?.[1];
    const fields = jsonFields(req.body);
    const verdict = await judgeReport(deps, header, fields);
    await countKeyFailure(deps, req, res, header, verdict);
    if (verdict.status === 'LOST' && verdict.reason === 'EXCEPTION_REPORT_INVALID') {
      throw new AppError('VALIDATION_FAILED', { message: verdict.message });
    }
    if (verdict.status === 'LOST' && verdict.reason === 'EXCEPTION_API_KEY_INVALID') {
      res.setHeader('WWW-Authenticate', 'Bearer realm="apkrelay"');
    }
    budgetHeaders(res, verdict.budget, deps.now().getTime());
    res
      .status(verdict.status === 'REGISTERED' ? 202 : ERRORS[verdict.reason].status)
      .json(verdictJson(verdict));
  };
}

/** The signed-in account's app named by the path, as a scope; 404 when there is none. */
async function appScope(deps: ApiDeps, req: Request, res: Response) {
  const account = currentAccount(res);
  const app = await findApp(deps.db, account.id, String(req.params.package));
  if (!app) throw new AppError('NOT_FOUND', { message: 'no such app' });
  return { accountId: account.id, package: app.package };
}

async function findReport(deps: ApiDeps, req: Request, res: Response) {
  const scope = await appScope(deps, req, res);
  const report = await reportOfPackage(deps.db, scope, String(req.params.id));
  if (!report) throw new AppError('NOT_FOUND', { message: 'no such exception' });
  return report;
}

export function listGroups(deps: ApiDeps): Handler {
  return async (req, res) => {
    const scope = await appScope(deps, req, res);
    const limit = Math.min(500, Math.max(1, Number(req.query.limit) || 50));
    const groups = await latestGroups(deps.db, scope, limit);
    res.json({ package: scope.package, groups: groups.map(presentGroup) });
  };
}

export function showReport(deps: ApiDeps): Handler {
  return async (req, res) => {
    const report = await findReport(deps, req, res);
    const url = report.screenshotId
      ? `${deps.publicUrls.base}/api/v2/apps/${encodeURIComponent(report.package)}/exceptions/${report._id}/screenshot`
      : null;
    res.json(presentReport(report, url));
  };
}

export function reportScreenshot(deps: ApiDeps): Handler {
  return async (req, res) => {
    const report = await findReport(deps, req, res);
    const { screenshots } = deps.exceptions;
    const file = report.screenshotId ? await screenshots.open(report.screenshotId) : null;
    if (!file) throw new AppError('NOT_FOUND', { message: 'this exception has no screenshot' });
    res.status(200);
    res.setHeader('Content-Type', 'image/jpeg');
    // Checked as JPEG at intake; stored before that check, any bytes: never let a browser sniff.
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Content-Length', String(file.length));
    res.setHeader('Cache-Control', 'private, max-age=3600');
    // Screenshots are bounded by MAX_EXCEPTION_BYTES: read whole, then send with a length.
    res.end(await readWhole(file.stream));
  };
}

export function showStats(deps: ApiDeps): Handler {
  return async (req, res) => {
    const app = await appOf(deps, res, req);
    res.json(await exceptionStats(deps, app, currentAccount(res).plan.installations));
  };
}

export function showGroup(deps: ApiDeps): Handler {
  return async (req, res) => {
    const app = await appOf(deps, res, req);
    const page = Math.max(1, Math.floor(Number(req.query.page ?? 1)) || 1);
    const view = await groupView(deps, app, String(req.params.fingerprint), page);
    if (!view) throw new AppError('NOT_FOUND', { message: 'no such issue' });
    res.json(view);
  };
}

export function exceptionRoutes(deps: ApiDeps): Route[] {
  const owner = (contract: RouteContract, path: string, handler: Handler): Route => ({
    method: 'get',
    path,
    hosts: ['admin'],
    access: 'apiKey',
    contract,
    handlers: [bearerAuth(deps), handler],
  });
  return [
    {
      method: 'post',
      path: '/exception',
      hosts: DEVICE_HOSTS,
      access: 'apiKey',
      contract: legacyExceptionContract,
      handlers: [legacyException(deps)],
    },
    {
      method: 'post',
      path: '/api/v2/exceptions',
      hosts: DEVICE_HOSTS,
      access: 'apiKey',
      contract: reportExceptionContract,
      jsonLimit: maxBytesOf(deps),
      handlers: [jsonException(deps)],
    },
    owner(listGroupsContract, '/api/v2/apps/:package/exceptions', listGroups(deps)),
    owner(exceptionStatsContract, '/api/v2/apps/:package/exception-stats', showStats(deps)),
    owner(
      showGroupContract,
      '/api/v2/apps/:package/exception-groups/:fingerprint',
      showGroup(deps),
    ),
    owner(showReportContract, '/api/v2/apps/:package/exceptions/:id', showReport(deps)),
    owner(
      screenshotContract,
      '/api/v2/apps/:package/exceptions/:id/screenshot',
      reportScreenshot(deps),
    ),
  ];
}
