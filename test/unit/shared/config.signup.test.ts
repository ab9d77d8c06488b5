import { ConfigError, loadConfig } from '../../../shared/config';

test('sign-up: open, 10 per client address per hour by default', () => {
  const config = loadConfig({});
  expect([config.signup, config.signupsPerAddress]).toEqual(['open', 10]);
});

test('SIGNUP takes open or closed (any case); SIGNUPS_PER_ADDRESS may be 0 (no limit)', () => {
  expect(loadConfig({ SIGNUP: 'closed' }).signup).toBe('closed');
  expect(loadConfig({ SIGNUP: ' Open ' }).signup).toBe('open');
  expect(loadConfig({ SIGNUPS_PER_ADDRESS: '0' }).signupsPerAddress).toBe(0);
  expect(loadConfig({ SIGNUPS_PER_ADDRESS: '250' }).signupsPerAddress).toBe(250);
});

test('bad values are named together, with what is allowed', () => {
  let error: unknown;
  try {
    loadConfig({ SIGNUP: 'invite-only', SIGNUPS_PER_ADDRESS: '-3' });
  } catch (err) {
    error = err;
  }
  expect(error).toBeInstanceOf(ConfigError);
  const problems = (error as ConfigError).problems;
  expect(problems).toContain('SIGNUP must be one of open, closed (got "invite-only")');
  expect(problems).toContain(
    'SIGNUPS_PER_ADDRESS must be a whole number from 0 to 1000000 (got "-3")',
  );
  expect(() => loadConfig({ SIGNUPS_PER_ADDRESS: 'ten' })).toThrow(/SIGNUPS_PER_ADDRESS/);
});
