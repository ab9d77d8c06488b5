/** WEBHOOK_ACCOUNT_CONCURRENCY, _REDELIVERIES_PER_MINUTE, _OVER_PLAN_WINDOW_SECONDS and DEVICE_NEW_REGISTRATIONS_PER_* (issue 31). */
import { ConfigError, loadConfig } from '../../../shared/config';

test('the webhook fairness settings (issue 31): defaults and read when set', () => {
  expect(loadConfig({}).webhooks).toMatchObject({
    accountConcurrency: 2,
    redeliveriesPerMinute: 30,
  });
  expect(
    loadConfig({ WEBHOOK_ACCOUNT_CONCURRENCY: '4', WEBHOOK_REDELIVERIES_PER_MINUTE: '5' }).webhooks,
  ).toMatchObject({ accountConcurrency: 4, redeliveriesPerMinute: 5 });
});

test('out of range is refused', () => {
  expect(() => loadConfig({ WEBHOOK_ACCOUNT_CONCURRENCY: '0' })).toThrow(ConfigError);
  expect(() => loadConfig({ WEBHOOK_REDELIVERIES_PER_MINUTE: '0' })).toThrow(ConfigError);
});

test('the over-plan window and the new-registration limits (issue 31, finding 6)', () => {
  expect(loadConfig({}).webhooks.overPlanWindowMs).toBe(3_600_000);
  expect(loadConfig({}).registrationLimits).toEqual({ perKey: 120, perApp: 600 });
  const set = loadConfig({
    WEBHOOK_OVER_PLAN_WINDOW_SECONDS: '600',
    DEVICE_NEW_REGISTRATIONS_PER_KEY: '5',
    DEVICE_NEW_REGISTRATIONS_PER_APP: '50',
  });
  expect(set.webhooks.overPlanWindowMs).toBe(600_000);
  expect(set.registrationLimits).toEqual({ perKey: 5, perApp: 50 });
});
