/**
 * The owner's paginated, filterable, sortable list of an app's installations (the JSON route and
 * the Installations tab read it alike): the query, parsed; each row told whether it is "ahead" (it
 * runs a higher versionCode than the APK it would be offered: it is offered nothing,
 * shared/devices/decide.ts), from the app's targets as the push hub picks them; and the summary
 * strip of the whole fleet (shared/devices/fleet-summary.ts).
 */
import { ObjectId } from 'mongodb';
import { apkById, apksOf } from '../../shared/catalog/queries';
import type { AppDoc } from '../../shared/catalog/types';
import { isAhead } from '../../shared/devices/decide';
import { FLEET_SORTS, fleetRows, type FleetSort } from '../../shared/devices/fleet';
import { fleetSummary } from '../../shared/devices/fleet-summary';
import { listInstallationPage, type InstallationFilter } from '../../shared/devices/store';
import { targetFor } from '../../shared/rollouts/target';
import { loadTargets } from '../../shared/rollouts/targets';
import { AppError } from '../../shared/errors';
import type { ApiDeps } from '../deps';

const MAX_PAGE_SIZE = 200;
export const DEFAULT_PAGE_SIZE = 50;
const STATUSES: readonly string[] = ['enabled', 'disabled', 'online', 'offline'];

/** What the list is asked for, read from the query string (the page's form or the API's). */
export interface ListingInput {
  readonly page: number;
  readonly pageSize: number;
  readonly status: InstallationFilter;
  /** Device id prefix; '' for any. */
  readonly q: string;
  /** A versionCode; null for any. */
  readonly version: number | null;
  /** A metadata pair written `key=value`; null for any. */
  readonly meta: { readonly key: string; readonly value: string } | null;
  readonly sort: FleetSort;
}

const refuse = (message: string) => new AppError('VALIDATION_FAILED', { message });
const text = (v: unknown) => (typeof v === 'string' ? v : '');

function statusOf(value: string): InstallationFilter {
  if (value === '') return null;
  if (STATUSES.includes(value)) return value as InstallationFilter;
  throw refuse('status must be enabled, disabled, online or offline');
}

function versionOf(value: string): number | null {
  if (value === '') return null;
  if (!/^\d{1,10}$/.test(value)) throw refuse('version must be a versionCode (digits)');
  return Number(value);
}

function metaOf(value: string): ListingInput['meta'] {
  if (value === '') return null;
  const eq = value.indexOf('=');
  if (eq <= 0) throw refuse('meta must be key=value');
  return { key: value.slice(0, eq), value: value.slice(eq + 1) };
}

function sortOf(value: string): FleetSort {
  if (value === '') return 'lastSeen';
  if ((FLEET_SORTS as readonly string[]).includes(value)) return value as FleetSort;
  throw refuse('sort must be lastSeen, version or deviceId');
}

/** The query read; a bad status, version, meta or sort is refused (VALIDATION_FAILED). */
export function listingInput(query: Record<string, unknown>): ListingInput {
  return {
    page: Math.max(1, Math.floor(Number(query.page ?? 1)) || 1),
    pageSize: Math.min(
      MAX_PAGE_SIZE,
      Math.max(1, Math.floor(Number(query.pageSize ?? DEFAULT_PAGE_SIZE)) || DEFAULT_PAGE_SIZE),
    ),
    status: statusOf(text(query.status)),
    q: text(query.q),
    version: versionOf(text(query.version)),
    meta: metaOf(text(query.meta)),
    sort: sortOf(text(query.sort)),
  };
}

/** One page of the app's installations as asked, and the summary of its whole fleet. */
export async function listInstallations(deps: ApiDeps, app: AppDoc, input: ListingInput) {
  const scope = { accountId: app.accountId, package: app.package };
  const [apks, loaded, fleet] = await Promise.all([
    apksOf(deps.db, app),
    loadTargets(deps.db, app, (id) => apkById(deps.db, app.accountId, new ObjectId(id))),
    fleetRows(deps, scope),
  ]);
  const versionCodes = new Map(apks.map((a) => [a.md5, a.versionCode]));
  const aheadOf = (row: {
    deviceId: string;
    installedMd5: string | null;
    metadata: readonly { key: string; value: string }[];
  }) => isAhead(targetFor(loaded.targets, row), versionCodes.get(row.installedMd5 ?? '') ?? null);
  const onlineSince = new Date(deps.now().getTime() - 3 * deps.limits.heartbeatSeconds * 1000);
  const listed = await listInstallationPage(deps, scope, {
    page: input.page,
    pageSize: input.pageSize,
    status: input.status,
    deviceIdPrefix: input.q === '' ? null : input.q,
    onlineSince,
    installedMd5s:
      input.version === null
        ? null
        : apks.filter((a) => a.versionCode === input.version).map((a) => a.md5),
    metadata: input.meta,
    sort: input.sort,
    versionCodes,
  });
  const installations = listed.installations.map((row) => ({ ...row, ahead: aheadOf(row) }));
  const summary = fleetSummary(
    fleet.map((r) => ({ ...r, ahead: aheadOf(r) })),
    apks,
    onlineSince,
  );
  return { ...listed, installations, summary };
}

export type InstallationPage = Awaited<ReturnType<typeof listInstallations>>;
