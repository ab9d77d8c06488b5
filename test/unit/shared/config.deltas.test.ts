import { ConfigError, loadConfig } from '../../../shared/config';

test('DELTA_MAX_SOURCES: 3 by default, a whole number from 0 to 50', () => {
  expect(loadConfig({}).deltas.maxSources).toBe(3);
  expect(loadConfig({ DELTA_MAX_SOURCES: '0' }).deltas.maxSources).toBe(0);
  expect(loadConfig({ DELTA_MAX_SOURCES: '10' }).deltas.maxSources).toBe(10);
  expect(() => loadConfig({ DELTA_MAX_SOURCES: '51' })).toThrow(/DELTA_MAX_SOURCES/);
  expect(() => loadConfig({ DELTA_MAX_SOURCES: 'two' })).toThrow(ConfigError);
});

test('DELTA_MAX_SHARE: 0.6 by default, a decimal above 0 and at most 1', () => {
  expect(loadConfig({}).deltas.maxShare).toBe(0.6);
  expect(loadConfig({ DELTA_MAX_SHARE: '0.35' }).deltas.maxShare).toBe(0.35);
  expect(loadConfig({ DELTA_MAX_SHARE: '.5' }).deltas.maxShare).toBe(0.5);
  expect(loadConfig({ DELTA_MAX_SHARE: '1' }).deltas.maxShare).toBe(1);
  for (const bad of ['0', '0.0', '1.5', '60%', '-0.2', 'half']) {
    expect(() => loadConfig({ DELTA_MAX_SHARE: bad })).toThrow(/DELTA_MAX_SHARE/);
  }
});
