/** The APKs tab's saving line, on literal transfer summaries (numbers worked out by hand). */
import { deltaSavingLine } from '../../../../api/apps/delta-saving';

const none = { updates: 0, bytes: 0 };

test('two updates by patch (2 MB together) and one whole (10 MB) of a 10 MB APK: 18 MB, 60 %', () => {
  const summary = {
    delta: { updates: 2, bytes: 2e6 },
    full: { updates: 1, bytes: 1e7 },
    fallbacks: {},
  };
  expect(String(deltaSavingLine(summary, 1e7))).toBe(
    '<p class="delta-saving">saved 18 MB (60 %) by deltas</p>',
  );
});

test('a fallback that cost more than the APK counts against the saving', () => {
  // 1 patch of 1 MB, 1 whole after a failed patch: 0.5 + 10 MB; whole would be 20 MB → 8.5 MB, 42.5 % (shown to 2 places, half up: 43 %)
  const summary = {
    delta: { updates: 1, bytes: 1e6 },
    full: { updates: 1, bytes: 1.05e7 },
    fallbacks: { 'patch-failed': 1 },
  };
  expect(String(deltaSavingLine(summary, 1e7))).toBe(
    '<p class="delta-saving">saved 8.5 MB (43 %) by deltas</p>',
  );
});

test('nothing when no update came as a patch, or nothing was reported', () => {
  expect(
    String(deltaSavingLine({ delta: none, full: { updates: 3, bytes: 3e7 }, fallbacks: {} }, 1e7)),
  ).toBe('');
  expect(String(deltaSavingLine(undefined, 1e7))).toBe('');
});
