/**
 * One app on the apps list, drawn as a fleet dashboard: its current version and rollout badge
 * (with the halt reason in a sentence), a stacked bar of installations by version with online and
 * offline, and a sparkline of unhandled crash reports per hour over the last 24 hours. Rendering
 * only: the numbers are `GET /api/v2/apps`'s (fleet.ts).
 */
import { stackedBar } from '../web/charts/stacked-bar';
import { sparkline } from '../web/charts/sparkline';
import { figureText } from '../web/charts/figure';
import { html, type Html } from '../web/html';
import { versionLabel } from '../insights/adoption-chart';
import type { AppFleet, FleetRollout } from './fleet';

export interface FleetRow {
  readonly package: string;
  /** "name (code)" of the current APK, or null. */
  readonly currentVersion: string | null;
  readonly fleet: AppFleet;
}

/** "running at 5 %", "paused at 5 %", "halted". */
export function badgeText(r: FleetRollout): string {
  return r.state === 'halted' ? 'halted' : `${r.state} at ${figureText(r.percent)} %`;
}

function rolloutBadge(r: FleetRollout | null, href: string): Html {
  if (!r) return html``;
  return html`<p class="rollout-badge" data-state="${r.state}">
      <a href="${href}/rollouts"
        ><span class="badge badge-${r.state}">${badgeText(r)}</span> rollout of ${r.version}</a
      >
    </p>
    ${r.haltReason ? html`<p class="halt-reason">${r.haltReason}</p>` : ''}`;
}

/** The versions as the bar names them: "1.2 (12)", "1.3 (13), ahead". */
export function fleetParts(fleet: AppFleet) {
  return fleet.versions.map((v) => ({
    label: v.ahead ? `${versionLabel(v)}, ahead` : versionLabel(v),
    count: v.count,
  }));
}

export function fleetCard(row: FleetRow, plan: number, exceptionLimit: number): Html {
  const f = row.fleet;
  const href = `/ui/apps/${encodeURIComponent(row.package)}`;
  return html`<article class="fleet-app" data-package="${row.package}">
    <h2><a href="${href}">${row.package}</a></h2>
    <p>Current version: <span data-field="current">${row.currentVersion ?? '—'}</span></p>
    ${rolloutBadge(f.rollout, href)}
    ${stackedBar({
      kind: 'fleet-versions',
      title: `Installations of ${row.package} by version`,
      unit: 'installations',
      parts: fleetParts(f),
      tail: `${f.online} online, ${f.offline} offline.`,
    })}
    <p class="fleet-seats">
      <span data-field="online">${f.online}</span> online ·
      <span data-field="offline">${f.offline}</span> offline ·
      <span data-field="enabled">${f.enabled}</span> enabled of a plan of ${plan}
    </p>
    ${sparkline({
      kind: 'crash-sparkline',
      title: `Unhandled crash reports of ${row.package} per hour, last 24 hours`,
      values: f.unhandledHourly,
      unit: 'unhandled crash reports',
      period: 'hour',
      span: 'in the last 24 h',
    })}
    <p class="fleet-exceptions">
      Exceptions (24 h): <span data-field="exceptions24h">${f.exceptions24h}</span> of a limit of
      ${exceptionLimit} · <a href="${href}/exceptions">Exceptions</a>
    </p>
  </article>`;
}
