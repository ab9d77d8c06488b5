/**
 * JSON API of rollouts (docs/rollouts.md): read an app's rollout, start one, and act on it
 * (pause, resume, advance, complete, halt). The use-cases live in shared/rollouts/actions.ts.
 */
import type { Request, Response } from 'express';
import { pickApk } from '../../shared/catalog/pick-apk';
import { apksOf } from '../../shared/catalog/queries';
import { AppError } from '../../shared/errors';
import { actOnRollout, startRollout } from '../../shared/rollouts/actions';
import { isRolloutAction } from '../../shared/rollouts/rollout';
import { findRollout } from '../../shared/rollouts/store';
import { previewPercent } from '../../shared/rollouts/preview';
import { auditContext } from '../audit-context';
import { bearerAuth } from '../auth';
import type { ApiDeps } from '../deps';
import { appOf } from '../owned-app';
import { appPreview, rolloutDeps, rolloutView } from './rollout-view';
import {
  createRolloutContract,
  previewContract,
  rolloutActionContract,
  showRolloutContract,
} from './contracts';
import type { Route } from '../route-table';

export async function showRollout(deps: ApiDeps, req: Request, res: Response): Promise<void> {
  const app = await appOf(deps, res, req);
  const doc = await findRollout(deps.db, app);
  if (!doc) throw new AppError('NOT_FOUND', { message: 'this app has no rollout' });
  res.json(await rolloutView(deps, app, doc));
}

export async function createRollout(deps: ApiDeps, req: Request, res: Response): Promise<void> {
  const app = await appOf(deps, res, req);
  const body = (req.body ?? {}) as Record<string, unknown>;
  const apk = pickApk(await apksOf(deps.db, app), body);
  const doc = await startRollout(
    rolloutDeps(deps, auditContext(req, res)),
    app,
    apk,
    body,
    deps.now(),
  );
  res.status(201).json(await rolloutView(deps, app, doc));
}

export async function rolloutAction(deps: ApiDeps, req: Request, res: Response): Promise<void> {
  const action = String(req.params.action);
  if (!isRolloutAction(action)) {
    throw new AppError('NOT_FOUND', { message: `no rollout action ${action}` });
  }
  const app = await appOf(deps, res, req);
  const doc = await actOnRollout(
    rolloutDeps(deps, auditContext(req, res)),
    app,
    action,
    deps.now(),
  );
  res.json(await rolloutView(deps, app, doc));
}

/**
 * Who a rollout at `?percent=` would include (no targeting): the app id the buckets are computed
 * from, and each installation's bucket (issue 31).
 */
export async function showPreview(deps: ApiDeps, req: Request, res: Response): Promise<void> {
  const app = await appOf(deps, res, req);
  const percent = previewPercent(req.query.percent);
  if (percent === null) {
    throw new AppError('VALIDATION_FAILED', {
      message: 'percent must be a number from 0 to 100 with at most two decimals',
    });
  }
  res.json(await appPreview(deps, app, percent));
}

export function rolloutRoutes(deps: ApiDeps): Route[] {
  const auth = bearerAuth(deps);
  return [
    {
      method: 'get',
      path: '/api/v2/apps/:package/rollout',
      hosts: ['admin'],
      access: 'apiKey',
      contract: showRolloutContract,
      handlers: [auth, (req, res) => showRollout(deps, req, res)],
    },
    {
      method: 'get',
      path: '/api/v2/apps/:package/rollout/preview',
      hosts: ['admin'],
      access: 'apiKey',
      contract: previewContract,
      handlers: [auth, (req, res) => showPreview(deps, req, res)],
    },
    {
      method: 'post',
      path: '/api/v2/apps/:package/rollout',
      hosts: ['admin'],
      access: 'apiKey',
      contract: createRolloutContract,
      handlers: [auth, (req, res) => createRollout(deps, req, res)],
    },
    {
      method: 'post',
      path: '/api/v2/apps/:package/rollout/:action',
      hosts: ['admin'],
      access: 'apiKey',
      contract: rolloutActionContract,
      handlers: [auth, (req, res) => rolloutAction(deps, req, res)],
    },
  ];
}
