/**
 * The Rollouts tab's pictures: the stages as a progress bar with the current one marked, how many
 * installations the rollout offers its APK of how many, when the next stage is due, why it was
 * halted, and the crash rates of the new and the previous version at each evaluation of the
 * health gate that the rollout keeps, with the halt threshold (factor × the previous version's
 * rate) drawn dashed. Rendering only: the numbers are `GET /api/v2/apps/{package}/rollout`'s.
 */
import type { PresentedRollout } from '../../shared/rollouts/present';
import type { HealthReport } from '../../shared/rollouts/health';
import { figureText } from '../web/charts/figure';
import { lineChart } from '../web/charts/line-chart';
import { stageProgress } from '../web/charts/stage-progress';
import { html, type Html } from '../web/html';
import { when } from '../web/time';

type Apk = PresentedRollout['apk'];

/** "1.2 (12)", or "no previous version" when there is none. */
export const apkLabel = (apk: Apk) =>
  apk ? `${apk.versionName ?? ''} (${apk.versionCode})`.trim() : 'no previous version';

export interface RatePoint {
  readonly at: string;
  /** "halt, verdict halt", "advance, verdict healthy", "evaluated, verdict hold". */
  readonly what: string;
  /** Crashes per installation-hour; null without hours. */
  readonly newRate: number | null;
  readonly oldRate: number | null;
}

const rate = (count: number, hours: number) => (hours > 0 ? count / hours : null);

/**
 * The evaluations the rollout keeps, oldest first: each automatic decision's numbers, then the
 * stage's last evaluation when no decision was made on it.
 */
export function ratePoints(r: PresentedRollout): RatePoint[] {
  const kept: Array<{ at: string; what: string; report: HealthReport }> = r.history.flatMap((e) =>
    e.health
      ? [{ at: e.at, what: `${e.action}, verdict ${e.health.verdict}`, report: e.health }]
      : [],
  );
  const { last, lastEvaluatedAt } = r.health;
  if (last && lastEvaluatedAt && !kept.some((k) => k.at === lastEvaluatedAt)) {
    kept.push({ at: lastEvaluatedAt, what: `evaluated, verdict ${last.verdict}`, report: last });
  }
  kept.sort((a, b) => a.at.localeCompare(b.at));
  return kept.map((k) => ({
    at: k.at,
    what: k.what,
    newRate: rate(k.report.newCount, k.report.newHours),
    oldRate: rate(k.report.oldCount, k.report.oldHours),
  }));
}

export function crashRateChart(r: PresentedRollout, now: Date): Html {
  const points = ratePoints(r);
  if (points.length === 0) return html`<p>The health gate has not evaluated this rollout yet.</p>`;
  const factor = r.gate.factor;
  const chart = lineChart({
    kind: 'rollout-crash-rates',
    title: 'Crashes per installation-hour of the new and the previous version at each evaluation',
    measure: 'Crashes per installation-hour',
    point: 'evaluation',
    series: [
      { name: apkLabel(r.apk), values: points.map((p) => p.newRate) },
      { name: apkLabel(r.previous), values: points.map((p) => p.oldRate) },
      {
        name: `halt threshold (${figureText(factor)}× ${apkLabel(r.previous)})`,
        values: points.map((p) => (p.oldRate === null ? null : factor * p.oldRate)),
        dashed: true,
        colour: '#c53030',
      },
    ],
  });
  return html`${chart}
    <ol class="chart-points">
      ${points.map((p) => html`<li>${when(p.at, now)}: ${p.what}</li>`)}
    </ol>`;
}

function nextStage(r: PresentedRollout, now: Date): Html {
  if (r.state === 'paused') return html`<p class="next-stage">Paused: the health gate waits.</p>`;
  if (!r.nextStageAt) return html``;
  const next = r.stages[r.stageIndex + 1] ?? 100;
  return html`<p class="next-stage">
    Next stage: <span data-reach="next">${figureText(next)}</span> % at ${when(r.nextStageAt, now)}
    (the stage start plus the soak), if the health gate finds this stage healthy.
  </p>`;
}

/** The stages, the reach, the next stage and the halt reason. */
export function rolloutPictures(r: PresentedRollout, now: Date): Html {
  return html`${stageProgress({ stages: r.stages, stageIndex: r.stageIndex, state: r.state })}
    <p class="rollout-reach">
      <span data-reach="offered">${r.offered}</span> of
      <span data-reach="installations">${r.installations}</span> installations offered
      ${apkLabel(r.apk)}; <span data-reach="installed">${r.installed}</span> run it.
    </p>
    ${nextStage(r, now)}
    ${r.haltReason ? html`<p class="halt-reason" data-reach="halt-reason">${r.haltReason}</p>` : ''}`;
}
