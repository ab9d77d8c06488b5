/**
 * The delivery signature (docs/webhooks.md#verifying-a-delivery): HMAC-SHA256 over
 * `<timestamp>.<body>`. The expected value was computed by hand with
 * `printf '%s' '1700000000.{"id":"evt_1","type":"apk.accepted"}' | openssl dgst -sha256 -hmac whsec_test`.
 */
import { signDelivery } from '../../../../shared/webhooks/signature';

test('signs timestamp.body with the secret, the timestamp in whole Unix seconds', () => {
  const body = '{"id":"evt_1","type":"apk.accepted"}';
  expect(signDelivery('whsec_test', body, new Date('2023-11-14T22:13:20.999Z'))).toEqual({
    timestamp: '1700000000',
    signature: 'v1=b038e9337341343dc20f9fbd8e23dba9c212f77ac56b8b3547dbc5a1dfdde1bc',
  });
});

test('another body, secret or second gives another signature', () => {
  const at = new Date('2023-11-14T22:13:20Z');
  const base = signDelivery('whsec_test', '{}', at).signature;
  expect(signDelivery('whsec_test', '{} ', at).signature).not.toBe(base);
  expect(signDelivery('whsec_other', '{}', at).signature).not.toBe(base);
  expect(signDelivery('whsec_test', '{}', new Date(at.getTime() + 1000)).signature).not.toBe(base);
});
