/**
 * The app page's Rollouts tab: the app's rollout as pictures (web-pictures.ts), its state,
 * targeting and the actions its state allows (Halt and Complete behind a confirmation box that
 * works without script), the health gate's numbers and every recorded decision (collapsed), the
 * install funnel of the rolled-out APK, and the form that starts a rollout. A refused form is shown
 * on the tab itself, above the form, with what was typed kept. Rendering only: the numbers are the
 * JSON API's (shared/rollouts/present.ts, shared/funnel/report.ts).
 */
import type { RolloutPreview } from '../../shared/rollouts/preview';
import type { ApkDoc, AppDoc } from '../../shared/catalog/types';
import type { apkFunnel } from '../../shared/funnel/report';
import type { HealthReport } from '../../shared/rollouts/health';
import type { PresentedRollout } from '../../shared/rollouts/present';
import { allowedActions, type RolloutAction } from '../../shared/rollouts/rollout';
import { appLayout } from '../apps/web-views';
import { when } from '../web/time';
import { html, type Html } from '../web/html';
import { may, type Viewer } from '../web/views';
import { apkLabel, crashRateChart, rolloutPictures } from './web-pictures';

type Funnel = Awaited<ReturnType<typeof apkFunnel>>;
type Apk = PresentedRollout['apk'];

export interface RolloutsPage {
  readonly rollout: PresentedRollout | null;
  /** The rolled-out APK's funnel (a page of installations after `after`). */
  readonly funnel: Funnel | null;
  readonly apks: readonly ApkDoc[];
  /** "Who is in at p %", when the page was asked one (`?preview=p`). */
  readonly preview?: RolloutPreview | null;
  /** The request's time: times are shown relative to it. */
  readonly now: Date;
  /** A refused form: why, and (the start form) the fields as they were sent. */
  readonly problem?: RolloutProblem | null;
}

export interface RolloutProblem {
  readonly message: string;
  /** `start` (the start form, `form` holds its fields) or the refused action. */
  readonly form: 'start' | RolloutAction;
  readonly fields?: Readonly<Record<string, string>>;
}

/** A number for reading: `—` when absent, else at most `digits` decimals. */
function num(value: number | null | undefined, digits = 2): string {
  if (value === null || value === undefined) return '—';
  return Number.isInteger(value) ? String(value) : value.toFixed(digits);
}

function pValue(p: number | null): string {
  if (p === null) return '—';
  return p !== 0 && p < 0.001 ? p.toExponential(2) : p.toFixed(4);
}

/** Exceptions per installation-hour online. */
const rate = (count: number, hours: number) => (hours > 0 ? num(count / hours, 3) : '—');

const apkName = (apk: Apk) =>
  apk ? html`${apk.versionName ?? ''} (${apk.versionCode})` : html`<em>none</em>`;

/** A table of these columns and rows. */
function table(cls: string, names: readonly string[], rows: readonly Html[]): Html {
  const heads = names.map((name) => html`<th scope="col">${name}</th>`);
  return html`<table class="${cls}">
    <thead>
      <tr>
        ${heads}
      </tr>
    </thead>
    <tbody>
      ${rows}
    </tbody>
  </table>`;
}

function field(name: string, value: Html | string) {
  return html`<dt>${name}</dt>
    <dd>${value}</dd>`;
}

function targetingText(t: PresentedRollout['targeting']): string {
  const parts = [
    t.metadata ? `metadata ${t.metadata.key} in ${t.metadata.values.join(', ')}` : '',
    t.deviceIds.length > 0 ? `devices ${t.deviceIds.join(', ')}` : '',
  ].filter(Boolean);
  return parts.length > 0 ? parts.join('; ') : 'every installation';
}

function summary(r: PresentedRollout, now: Date): Html {
  return html`<dl class="rollout" data-state="${r.state}">
    ${field('State', html`<span data-field="state">${r.state}</span>`)}
    ${field('Now offered to', html`<span data-field="percent">${num(r.percent)}</span> %`)}
    ${field('APK', apkName(r.apk))} ${field('Previous APK', apkName(r.previous))}
    ${field('Targeting', html`<span data-field="targeting">${targetingText(r.targeting)}</span>`)}
    ${field('Installations running it', html`<span data-field="installed">${r.installed}</span>`)}
    ${field('Started', when(r.startedAt, now))}
    ${field('Stage started', when(r.stageStartedAt, now))}
  </dl>`;
}

/** The actions asked to be confirmed first, and what the box says. */
const CONFIRMED: Partial<Record<RolloutAction, (r: PresentedRollout) => string>> = {
  halt: (r) =>
    r.previous
      ? `Halt: every installation outside is offered ${apkLabel(r.previous)} again; those on ${apkLabel(r.apk)} keep it.`
      : `Halt: ${apkLabel(r.apk)} is offered to no installation any more; those on it keep it.`,
  complete: (r) => `Complete: ${apkLabel(r.apk)} becomes the current APK of every installation.`,
};

export const needsConfirmation = (action: RolloutAction) => CONFIRMED[action] !== undefined;

function actionForm(viewer: Viewer, base: string, r: PresentedRollout, action: RolloutAction) {
  const confirm = CONFIRMED[action];
  return html`<form
    class="${confirm ? 'confirm' : 'inline'}"
    method="post"
    action="${base}/${action}"
  >
    <input type="hidden" name="_csrf" value="${viewer.csrf}" />
    ${
      confirm
        ? html`<label
            ><input type="checkbox" name="confirm" value="yes" required /> ${confirm(r)}</label
          >`
        : ''
    }
    <button type="submit">${action[0]!.toUpperCase()}${action.slice(1)}</button>
  </form>`;
}

function actions(viewer: Viewer, base: string, r: PresentedRollout): Html {
  const allowed = may(viewer, 'rollout') ? allowedActions(r) : [];
  if (allowed.length === 0) return html``;
  return html`<div class="rollout-actions">
    ${allowed.map((action) => actionForm(viewer, base, r, action))}
  </div>`;
}

/** One evaluation's numbers, as cells (the health table and the history share them). */
function reportCells(h: HealthReport | null): Html {
  if (!h) return html`<td colspan="5">—</td>`;
  return html`<td data-field="verdict">${h.verdict}</td>
    <td>
      <span data-field="newCount">${h.newCount}</span> in
      <span data-field="newHours">${num(h.newHours, 4)}</span> h:
      <span data-field="newRate">${rate(h.newCount, h.newHours)}</span>
    </td>
    <td>
      <span data-field="oldCount">${h.oldCount}</span> in
      <span data-field="oldHours">${num(h.oldHours, 4)}</span> h:
      <span data-field="oldRate">${rate(h.oldCount, h.oldHours)}</span>
    </td>
    <td data-field="ratio">${h.ratio === null ? '—' : h.ratio.toFixed(2)}</td>
    <td data-field="pValue">${pValue(h.pValue)}</td>`;
}

const REPORT_HEAD = [
  'Verdict',
  'New version: exceptions in installation-hours: per hour',
  'Previous version: exceptions in installation-hours: per hour',
  'Rate ratio',
  'p-value',
];

function health(r: PresentedRollout, now: Date): Html {
  const h = r.health;
  return html`<h4>This stage's window</h4>
    <p>
      Window since ${when(h.since, now)}; last evaluated
      ${h.lastEvaluatedAt ? when(h.lastEvaluatedAt, now) : 'never'}.
    </p>
    ${table('rollout-health', REPORT_HEAD, [
      html`<tr>
        ${h.last ? reportCells(h.last) : html`<td colspan="5">Not evaluated in this stage yet.</td>`}
      </tr>`,
    ])}`;
}

function history(r: PresentedRollout, now: Date): Html {
  const rows = [...r.history].reverse().map(
    (e) =>
      html`<tr data-action="${e.action}" data-by="${e.by}">
        <td>${when(e.at, now)}</td>
        <td>${e.action}</td>
        <td>${e.by}</td>
        <td>${e.from ?? '—'} → ${e.to}</td>
        <td>${num(e.percent)} %</td>
        ${e.health ? reportCells(e.health) : html`<td colspan="5"></td>`}
      </tr>`,
  );
  return html`<h4>Decisions</h4>
    ${table('rollout-history', ['At', 'Decision', 'By', 'State', 'Offered to', ...REPORT_HEAD], rows)}`;
}

const FUNNEL_HEAD = [
  'Device id',
  'Offered',
  'Downloaded',
  'Installed',
  'Failed',
  'OS status: message',
];
function funnelSection(funnel: Funnel, base: string, now: Date): Html {
  const c = funnel.counts;
  const at = (iso: string | null) => (iso ? when(iso, now) : '—');
  const rows = funnel.installations.map(
    (i) =>
      html`<tr data-device="${i.deviceId ?? ''}">
        <td><code>${i.deviceId ?? '?'}</code></td>
        <td>${at(i.offeredAt)}</td>
        <td>${at(i.downloadedAt)}</td>
        <td>${at(i.installedAt)}</td>
        <td>${at(i.failedAt)}</td>
        <td data-field="failure">
          ${i.failure ? `${i.failure.osStatus ?? '?'}: ${i.failure.message ?? ''}` : ''}
        </td>
      </tr>`,
  );
  return html`<h3>Install funnel</h3>
    <dl class="funnel rollout-funnel">
      ${(['offered', 'downloaded', 'installed', 'failed'] as const).map(
        (stage) =>
          html`<dt>${stage}</dt>
            <dd data-stage="${stage}">${c[stage]}</dd>`,
      )}
    </dl>
    ${table('rollout-installations', FUNNEL_HEAD, rows)}
    ${
      funnel.next
        ? html`<p>
            <a href="${base}?${new URLSearchParams({ after: funnel.next }).toString()}"
              >Next installations</a
            >
          </p>`
        : ''
    }`;
}

/** A refusal, shown where the form was. */
function refusal(problem: RolloutProblem | null | undefined, form: RolloutProblem['form']): Html {
  return problem?.form === form
    ? html`<p class="error" role="alert" id="rollout-problem">${problem.message}</p>`
    : html``;
}

function startForm(viewer: Viewer, base: string, page: RolloutsPage, app: AppDoc): Html {
  const choices = page.apks.filter((a) => !app.currentApkId?.equals(a._id));
  if (choices.length === 0) {
    return html`${refusal(page.problem, 'start')}
      <p>Upload another APK to roll it out.</p>`;
  }
  const kept = page.problem?.form === 'start' ? (page.problem.fields ?? {}) : {};
  const value = (name: string) => kept[name] ?? '';
  return html`${refusal(page.problem, 'start')}
    <form class="stack" method="post" action="${base}">
      <input type="hidden" name="_csrf" value="${viewer.csrf}" />
      <label for="rollout-apk">APK</label>
      <select id="rollout-apk" name="sha256">
        ${choices.map(
          (a) =>
            html`<option value="${a.sha256}" ${a.sha256 === kept.sha256 ? html`selected` : ''}>
              ${a.versionName ?? ''} (${a.versionCode}) ${a.md5.slice(0, 8)}
            </option>`,
        )}
      </select>
      <label for="rollout-stages">Stages (percentages, the last 100)</label>
      <input
        id="rollout-stages"
        name="stages"
        placeholder="1, 5, 25, 100"
        value="${value('stages')}"
      />
      <label for="rollout-key">Only installations whose metadata key</label>
      <input
        id="rollout-key"
        name="metadataKey"
        placeholder="store"
        value="${value('metadataKey')}"
      />
      <label for="rollout-values">has one of the values (comma-separated)</label>
      <input
        id="rollout-values"
        name="metadataValues"
        placeholder="north, south"
        value="${value('metadataValues')}"
      />
      <label for="rollout-devices">And these device ids, whatever the percentage</label>
      <textarea id="rollout-devices" name="deviceIds" rows="3">${value('deviceIds')}</textarea>
      <button type="submit">Start rollout</button>
    </form>`;
}

/** The rollout: pictures, state, actions, the gate's chart, its numbers collapsed, the funnel. */
function rolloutSection(
  viewer: Viewer,
  base: string,
  r: PresentedRollout,
  page: RolloutsPage,
  problem: RolloutProblem | null,
) {
  return html`${rolloutPictures(r, page.now)} ${summary(r, page.now)}
    ${problem ? refusal(problem, problem.form) : ''} ${actions(viewer, base, r)}
    <h3>Health</h3>
    ${crashRateChart(r, page.now)}
    <details class="rollout-numbers">
      <summary>The health gate's numbers and every decision</summary>
      ${health(r, page.now)} ${history(r, page.now)}
    </details>
    ${page.funnel ? funnelSection(page.funnel, base, page.now) : ''}`;
}

export function rolloutsTab(viewer: Viewer, app: AppDoc, page: RolloutsPage): string {
  const base = `/ui/apps/${encodeURIComponent(app.package)}/rollouts`;
  const r = page.rollout;
  const active = r?.state === 'running' || r?.state === 'paused';
  const startShown = !active && may(viewer, 'rollout');
  // A refusal is shown above the form it refused; a start refused because one is active (its form
  // is not shown then), above the rollout's buttons.
  const p = page.problem ?? null;
  const aboveActions = p && (p.form !== 'start' || !startShown) ? p : null;
  return appLayout(
    viewer,
    app,
    'rollouts',
    html`<h2>Rollout</h2>
      ${
        r
          ? rolloutSection(viewer, base, r, page, aboveActions)
          : html`<p>No rollout yet.</p>
              ${aboveActions ? refusal(aboveActions, aboveActions.form) : ''}`
      }
      ${
        !startShown
          ? ''
          : html`<h2>Start a rollout</h2>
              ${r ? html`<p>A new rollout replaces this one.</p>` : ''}
              ${startForm(viewer, base, page, app)}`
      }
      ${previewSection(app, base, page.preview ?? null)}`,
  );
}

const PREVIEW_ROWS = 200;

/**
 * The app id rollout buckets are computed from, and a "who is in at p %" form and its answer
 * (issue 31; docs/rollouts.md).
 */
function previewSection(app: AppDoc, base: string, preview: RolloutPreview | null): Html {
  const rows = preview?.devices.slice(0, PREVIEW_ROWS) ?? [];
  return html`<h2>Who is in at a percentage</h2>
    <p>
      App id: <code id="rollout-app-id">${app._id.toHexString()}</code>. A device is in at p % when
      the first four bytes of SHA-256 of <code>&lt;app id&gt;:&lt;device id&gt;</code>, modulo
      10,000, are below p × 100 (targeting narrows a rollout further).
    </p>
    <form class="inline" method="get" action="${base}">
      <label for="preview-percent">Percentage</label>
      <input
        id="preview-percent"
        name="preview"
        inputmode="decimal"
        value="${preview ? String(preview.percent) : ''}"
        required
      />
      <button type="submit">Show who is in</button>
    </form>
    ${
      preview
        ? html`<p id="preview-summary">
              At ${String(preview.percent)} %: ${String(preview.included)} of
              ${String(preview.installations)} installations.
            </p>
            <table id="preview-devices">
              <thead>
                <tr>
                  <th>Device</th>
                  <th>Bucket</th>
                  <th>In</th>
                </tr>
              </thead>
              <tbody>
                ${rows.map(
                  (d) =>
                    html`<tr>
                      <td>${d.deviceId}</td>
                      <td>${String(d.bucket)}</td>
                      <td>${d.included ? 'yes' : 'no'}</td>
                    </tr>`,
                )}
              </tbody>
            </table>
            ${preview.devices.length > PREVIEW_ROWS ? html`<p>The first ${String(PREVIEW_ROWS)} by bucket are shown; the JSON API lists all.</p>` : ''}`
        : ''
    }`;
}
