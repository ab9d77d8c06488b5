/**
 * A rollout's stages as a progress bar: one equal segment per stage, labelled with its
 * percentage; stages passed filled, the current one marked ("now", outlined), those to come
 * empty. A halted rollout's current stage is red, a completed rollout's stages all passed. Pure.
 */
import { html, type Html } from '../html';
import { chartFigure, figureText, PALETTE } from './figure';

export interface StageProgressInput {
  /** Percentages, increasing, the last 100. */
  readonly stages: readonly number[];
  readonly stageIndex: number;
  readonly state: 'running' | 'paused' | 'halted' | 'completed';
}

export const STAGES = { width: 480, height: 46, gap: 4, barHeight: 24 } as const;

const FILL = { passed: PALETTE[2], current: PALETTE[0], halted: '#c53030', ahead: '#e2e8f0' };
/** The label's colour on each fill: the one of white and the page's ink with at least 4.5:1. */
const INK = { passed: '#1d2330', current: '#fff', halted: '#fff', ahead: '#1d2330' };

type Phase = keyof typeof FILL;

function phaseOf(input: StageProgressInput, i: number): Phase {
  if (input.state === 'completed' || i < input.stageIndex) return 'passed';
  if (i > input.stageIndex) return 'ahead';
  return input.state === 'halted' ? 'halted' : 'current';
}

/** "Stage 2 of 4 (5 %), running; stages 1 %, 5 %, 25 %, 100 %." */
export function stageSummary(input: StageProgressInput): string {
  const n = input.stages.length;
  const all = input.stages.map((s) => `${figureText(s)} %`).join(', ');
  const at = `stage ${input.stageIndex + 1} of ${n} (${figureText(input.stages[input.stageIndex] ?? 100)} %)`;
  if (input.state === 'completed') return `Completed: all ${n} stages passed; stages ${all}.`;
  if (input.state === 'halted') return `Halted at ${at}; stages ${all}.`;
  return `${at[0]!.toUpperCase()}${at.slice(1)}, ${input.state}; stages ${all}.`;
}

/** Each stage's segment: x, width and phase. */
export function stageSegments(input: StageProgressInput) {
  const n = input.stages.length;
  const w = (STAGES.width - STAGES.gap * (n - 1)) / n;
  return input.stages.map((percent, i) => ({
    percent,
    x: i * (w + STAGES.gap),
    width: w,
    phase: phaseOf(input, i),
  }));
}

export function stageProgress(input: StageProgressInput): Html {
  const body = stageSegments(input).map((s) => {
    const mid = (s.x + s.width / 2).toFixed(2);
    const marked = s.phase === 'current' || s.phase === 'halted';
    return html`<g class="stage" data-phase="${s.phase}" ${marked ? html`aria-current="step"` : ''}>
      <rect
        x="${s.x.toFixed(2)}"
        y="0"
        width="${s.width.toFixed(2)}"
        height="${STAGES.barHeight}"
        fill="${FILL[s.phase]}"
        ${marked ? html`stroke="#1d2330" stroke-width="2"` : ''}
      />
      <text x="${mid}" y="16" font-size="12" text-anchor="middle" fill="${INK[s.phase]}"
        >${figureText(s.percent)} %</text
      >
      ${marked ? html`<text x="${mid}" y="40" font-size="11" text-anchor="middle">${s.phase === 'halted' ? 'halted' : 'now'}</text>` : ''}
    </g>`;
  });
  return chartFigure({
    kind: 'rollout-stages',
    title: 'Rollout stages',
    summary: stageSummary(input),
    width: STAGES.width,
    height: STAGES.height,
    body,
  });
}
