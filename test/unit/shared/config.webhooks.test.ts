/** WEBHOOK_ACCOUNT_CONCURRENCY and WEBHOOK_REDELIVERIES_PER_MINUTE (docs/webhooks.md). */
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
