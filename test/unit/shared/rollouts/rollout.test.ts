import { AppError } from '../../../../shared/errors';
import {
  allowedActions,
  isRolloutAction,
  parseStages,
  percentOf,
  transition,
  type RolloutAction,
  type RolloutCore,
  type RolloutState,
} from '../../../../shared/rollouts/rollout';

/** The error code `fn` throws, or undefined when it does not throw. */
function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    return err instanceof AppError ? err.code : 'not an AppError';
  }
  return undefined;
}

const at = (state: RolloutState, stageIndex = 1): RolloutCore => ({
  state,
  stages: [1, 5, 25, 100],
  stageIndex,
});

test('stages: default, valid and refused', () => {
  expect(parseStages(undefined)).toEqual([1, 5, 25, 100]);
  expect(parseStages([10, 50, 100])).toEqual([10, 50, 100]);
  expect(parseStages([100])).toEqual([100]);
  for (const bad of [
    [],
    [5, 5, 100],
    [50, 10, 100],
    [10, 50],
    [0, 100],
    [1.005, 100],
    'x',
    [101],
  ]) {
    expect(codeOf(() => parseStages(bad))).toBe('VALIDATION_FAILED');
  }
});

test('percent per state', () => {
  expect(percentOf(at('running', 1))).toBe(5);
  expect(percentOf(at('paused', 2))).toBe(25);
  expect(percentOf(at('halted', 2))).toBe(0);
  expect(percentOf(at('completed', 0))).toBe(100);
});

// Every (state, action): the resulting state and stage, or refused. Written by hand.
const table: Array<[RolloutState, RolloutAction, RolloutState | 'refused', number | null]> = [
  ['running', 'pause', 'paused', 1],
  ['running', 'resume', 'refused', null],
  ['running', 'advance', 'running', 2],
  ['running', 'complete', 'completed', 3],
  ['running', 'halt', 'halted', 1],
  ['paused', 'pause', 'refused', null],
  ['paused', 'resume', 'running', 1],
  ['paused', 'advance', 'refused', null],
  ['paused', 'complete', 'completed', 3],
  ['paused', 'halt', 'halted', 1],
  ...(['pause', 'resume', 'advance', 'complete', 'halt'] as const).flatMap(
    (a) =>
      [
        ['halted', a, 'refused', null],
        ['completed', a, 'refused', null],
      ] as Array<[RolloutState, RolloutAction, 'refused', null]>,
  ),
];

test.each(table)('%s + %s → %s (stage %s)', (state, action, expected, stage) => {
  if (expected === 'refused') {
    expect(codeOf(() => transition(at(state), action))).toBe('ROLLOUT_STATE_CONFLICT');
    return;
  }
  expect(transition(at(state), action)).toEqual({
    ...at(state),
    state: expected,
    stageIndex: stage,
  });
});

test('advancing from the stage before the last completes', () => {
  expect(transition(at('running', 2), 'advance')).toEqual(at('completed', 3));
});

test('the actions each state allows (the web page offers these buttons)', () => {
  expect(allowedActions(at('running'))).toEqual(['pause', 'advance', 'complete', 'halt']);
  expect(allowedActions(at('paused'))).toEqual(['resume', 'complete', 'halt']);
  expect(allowedActions(at('halted'))).toEqual([]);
  expect(allowedActions(at('completed'))).toEqual([]);
});

test('action names', () => {
  expect(['pause', 'resume', 'advance', 'complete', 'halt'].every(isRolloutAction)).toBe(true);
  expect(['start', 'Pause', '', 'toString', undefined].some(isRolloutAction)).toBe(false);
});
