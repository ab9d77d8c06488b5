/**
 * Exceptions: the PushLink-compatible `POST /exception` (form; plain-text verdicts, HTTP 200), the
 * JSON `POST /api/v2/exceptions` (Bearer API key; `{status, reason, message, budget}` with the
 * reason's status), both on every host devices reach (admin, web, push), and the owner's views
 * (admin host): grouped issues, one report, its screenshot.
 */
import { isUtf8 } from 'node:buffer';
import type { Request, Response } from 'express';
import { catalog } from '../../shared/catalog/collections';
import { AppError, ERRORS } from '../../shared/errors';
import { exceptionCollections } from '../../shared/exceptions/collections';
import { parseExceptionForm } from '../../shared/exceptions/form';
import { presentGroup, presentReport } from '../../shared/exceptions/present';
import { ReportInvalid, validateReport, type ReportFields } from '../../shared/exceptions/report';
import { gridFsScreenshots, type ScreenshotStore } from '../../shared/exceptions/screenshots';
import { redisSlidingWindow, type Budget } from '../../shared/exceptions/sliding-window';
import { invalidReportText, lost, type Verdict } from '../../shared/exceptions/verdicts';
import { exceptionIngestQueue } from '../../shared/queues/exception-ingest';
import { redisKeys } from '../../shared/redis-keys';
import { bearerAuth, currentAccount, isAuthRateLimited, noteAuthFailure } from '../auth';
import type { ApiDeps } from '../deps';
import { intakeCaches, takeReport, type IntakeDeps } from '../exceptions/intake';
import { jsonReportFields } from '../exceptions/json-report';
import { readBody } from '../exceptions/read-body';
import { isDependencyOutage } from '../http-errors';
import { cardInstallationLookup } from '../../shared/devices/store';
import { DEVICE_HOSTS, type Route } from '../route-table';
import { sendText } from '../text-reply';

export const DEFAULT_MAX_EXCEPTION_BYTES = 2 * 1024 * 1024;

/**
 * The form's bytes, and the bytes its percent-escapes stand for, are UTF-8. (URLSearchParams
 * would turn anything else into U+FFFD, and the report would be stored with its bytes lost.) A
 * `%` that starts no escape is taken literally, as URLSearchParams does.
 */
export function formIsUtf8(body: Buffer): boolean {
  if (!isUtf8(body)) return false;
  for (const part of body.toString('utf8').split(/[&=]/)) {
    if (!part.includes('%')) continue;
    try {
      decodeURIComponent(part.replace(/%(?![0-9A-Fa-f]{2})/g, '%25'));
    } catch {
      return false;
    }
  }
  return true;
}
const UNAVAILABLE_TEXT = 'Exception not sent: the service is unavailable; retry later.';
const THROTTLED_TEXT = 'Exception not sent: too many failed API key attempts; retry later.';

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

export function exceptionRoutes(deps: ApiDeps): Route[] {
  const maxBytes = deps.limits.maxExceptionBytes ?? DEFAULT_MAX_EXCEPTION_BYTES;
  // Built on first use: the route table is also built without live dependencies (OpenAPI test).
  let intake: IntakeDeps | undefined;
  let screenshots: ScreenshotStore | undefined;
  const intakeDeps = (): IntakeDeps => {
    if (intake) return intake;
    const queue = deps.producers.get(exceptionIngestQueue.name);
    // Window keys live under the same prefix as the queues (QUEUE_PREFIX).
    const prefix = queue.opts.prefix ?? 'bull';
    return (intake = {
      db: deps.db,
      accounts: deps.accounts,
      queue,
      window: redisSlidingWindow(deps.redis),
      windowKey: redisKeys(prefix).exceptionWindow,
      installations: cardInstallationLookup(deps),
      caches: intakeCaches(),
      now: deps.now,
      log: deps.log,
    });
  };

  async function judge(apiKey: string | undefined, fields: ReportFields): Promise<Verdict> {
    try {
      return deps.metrics.countException(
        await takeReport(intakeDeps(), apiKey, validateReport(fields)),
      );
    } catch (err) {
      if (err instanceof ReportInvalid) {
        return deps.metrics.countException(
          lost('EXCEPTION_REPORT_INVALID', invalidReportText(err.message)),
        );
      }
      throw err;
    }
  }

  /** A report refused for its key is a failed authentication (throws past the limits). */
  async function countKeyFailure(
    req: Request,
    res: Response,
    apiKey: string | undefined,
    verdict: Verdict,
  ): Promise<void> {
    if (apiKey && verdict.status === 'LOST' && verdict.reason === 'EXCEPTION_API_KEY_INVALID') {
      await noteAuthFailure(deps, req, res, apiKey);
    }
  }

  async function legacyException(req: Request, res: Response): Promise<void> {
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
    const form = parseExceptionForm(read.body.toString('utf8'));
    let verdict: Verdict;
    try {
      verdict = await judge(form.apiKey, form.fields);
      await countKeyFailure(req, res, form.apiKey, verdict);
    } catch (err) {
      if (isAuthRateLimited(err)) {
        sendText(res, 429, THROTTLED_TEXT);
        return;
      }
      if (!isDependencyOutage(err) && !(err instanceof AppError && err.status === 503)) throw err;
      res.setHeader('Retry-After', '5');
      sendText(res, 503, UNAVAILABLE_TEXT);
      return;
    }
    budgetHeaders(res, verdict.budget, deps.now().getTime());
    sendText(res, 200, verdict.message);
  }

  async function jsonException(req: Request, res: Response): Promise<void> {
    const header = /^Bearer\s+(\S+)\s*$/i.exec(req.header('authorization') ?? '')?.[1];
    let fields: ReportFields;
    try {
      fields = jsonReportFields(req.body);
    } catch (err) {
      if (err instanceof ReportInvalid)
        throw new AppError('VALIDATION_FAILED', { message: err.message });
      throw err;
    }
    const verdict = await judge(header, fields);
    await countKeyFailure(req, res, header, verdict);
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
  }

  async function appOf(res: Response, pkg: string) {
    const account = currentAccount(res);
    const app = await catalog(deps.db).apps.findOne({ accountId: account.id, package: pkg });
    if (!app) throw new AppError('NOT_FOUND', { message: 'no such app' });
    return { account, app };
  }

  async function listGroups(req: Request, res: Response): Promise<void> {
    const { account, app } = await appOf(res, String(req.params.package));
    const limit = Math.min(500, Math.max(1, Number(req.query.limit) || 50));
    const groups = await exceptionCollections(deps.db)
      .groups.find({ accountId: account.id, package: app.package })
      .sort({ lastSeen: -1 })
      .limit(limit)
      .toArray();
    res.json({ package: app.package, groups: groups.map(presentGroup) });
  }

  async function findReport(req: Request, res: Response) {
    const { account, app } = await appOf(res, String(req.params.package));
    const report = await exceptionCollections(deps.db).reports.findOne({
      _id: String(req.params.id),
      accountId: account.id,
      package: app.package,
    });
    if (!report) throw new AppError('NOT_FOUND', { message: 'no such exception' });
    return report;
  }

  async function showReport(req: Request, res: Response): Promise<void> {
    const report = await findReport(req, res);
    const url = report.screenshotId
      ? `${deps.publicUrls.base}/api/v2/apps/${encodeURIComponent(report.package)}/exceptions/${report._id}/screenshot`
      : null;
    res.json(presentReport(report, url));
  }

  async function screenshot(req: Request, res: Response): Promise<void> {
    const report = await findReport(req, res);
    screenshots ??= gridFsScreenshots(deps.db);
    const file = report.screenshotId ? await screenshots.open(report.screenshotId) : null;
    if (!file) throw new AppError('NOT_FOUND', { message: 'this exception has no screenshot' });
    res.status(200);
    res.setHeader('Content-Type', 'image/jpeg');
    // Checked as JPEG at intake; stored before that check, any bytes: never let a browser sniff.
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Content-Length', String(file.length));
    res.setHeader('Cache-Control', 'private, max-age=3600');
    // Screenshots are bounded by MAX_EXCEPTION_BYTES: read whole, then send with a length.
    const chunks: Buffer[] = [];
    for await (const chunk of file.stream) chunks.push(chunk as Buffer);
    res.end(Buffer.concat(chunks));
  }

  const owner = (
    summary: string,
    path: string,
    handler: (req: Request, res: Response) => Promise<void>,
  ): Route => ({
    method: 'get',
    path,
    hosts: ['admin'],
    access: 'apiKey',
    summary,
    handlers: [bearerAuth(deps), handler],
  });

  return [
    {
      method: 'post',
      path: '/exception',
      hosts: DEVICE_HOSTS,
      access: 'apiKey',
      summary:
        'PushLink-compatible exception report (form: package, api_key, hash, deviceId, st[], lc[], userInfo<i>[], screen, handled); plain-text verdict.',
      handlers: [legacyException],
    },
    {
      method: 'post',
      path: '/api/v2/exceptions',
      hosts: DEVICE_HOSTS,
      access: 'apiKey',
      summary:
        'Report an exception (JSON, Bearer API key); answers REGISTERED or LOST with the budget.',
      jsonLimit: maxBytes,
      handlers: [jsonException],
    },
    owner(
      'Exceptions of an app, grouped into issues by stack fingerprint.',
      '/api/v2/apps/:package/exceptions',
      listGroups,
    ),
    owner(
      'One exception report, with a link to its screenshot.',
      '/api/v2/apps/:package/exceptions/:id',
      showReport,
    ),
    owner(
      "An exception report's screenshot (image/jpeg).",
      '/api/v2/apps/:package/exceptions/:id/screenshot',
      screenshot,
    ),
  ];
}
