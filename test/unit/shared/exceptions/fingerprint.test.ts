import {
  exceptionClass,
  fingerprint,
  normaliseStack,
} from '../../../../shared/exceptions/fingerprint';

const crash = (line: number, message = 'Attempt to invoke virtual method on a null object') => [
  `java.lang.NullPointerException: ${message}`,
  `\tat com.shop.CartActivity.onClick(CartActivity.java:${line})`,
  `\tat com.shop.CartActivity.lambda$onCreate$0$CartActivity(CartActivity.java:${line + 10})`,
  '\tat com.shop.CartActivity$$ExternalSyntheticLambda3.onClick(Unknown Source:2)',
  '\tat android.view.View.performClick(View.java:7448)',
  'Caused by: java.io.IOException: socket closed at 0x7f3a2c',
  `\tat com.shop.net.Client.read(Client.java:${line * 3})`,
  '\t... 14 more',
];

test('normalises to classes, frames without line numbers, and the cause chain', () => {
  expect(normaliseStack(crash(42))).toEqual([
    'class java.lang.NullPointerException',
    'at com.shop.CartActivity.onClick CartActivity.java',
    'at com.shop.CartActivity.lambda$onCreate$CartActivity CartActivity.java',
    'at com.shop.CartActivity$synthetic.onClick Unknown Source',
    'at android.view.View.performClick View.java',
    'cause java.io.IOException',
    'at com.shop.net.Client.read Client.java',
  ]);
});

test('same stack with other line numbers, messages and lambda counters: same fingerprint', () => {
  const a = fingerprint(crash(42));
  const b = fingerprint(crash(97, 'other message with id 12345'));
  expect(a).toMatch(/^[0-9a-f]{32}$/);
  expect(b).toBe(a);
  const renumbered = crash(42).map((l) =>
    l.replace('ExternalSyntheticLambda3', 'ExternalSyntheticLambda7'),
  );
  expect(fingerprint(renumbered)).toBe(a);
});

test('another exception class, another frame or another cause: another fingerprint', () => {
  const base = fingerprint(crash(42));
  expect(
    fingerprint(crash(42).map((l) => l.replace('NullPointerException', 'IllegalStateException'))),
  ).not.toBe(base);
  expect(fingerprint(crash(42).map((l) => l.replace('performClick', 'performLongClick')))).not.toBe(
    base,
  );
  expect(
    fingerprint(crash(42).map((l) => l.replace('java.io.IOException', 'java.net.SocketException'))),
  ).not.toBe(base);
  expect(fingerprint(crash(42).slice(0, 5))).not.toBe(base); // no cause
});

test('blank lines, "... N more" and suppressed exceptions do not change it', () => {
  const base = fingerprint(crash(1));
  expect(fingerprint(['', ...crash(1), '', '\t... 3 more'])).toBe(base);
  expect(
    fingerprint([...crash(1), '\tSuppressed: java.lang.Error: x', '\t\tat a.B.c(B.java:1)']),
  ).toBe(base);
});

test('exceptionClass takes the class before the message', () => {
  expect(exceptionClass('java.lang.RuntimeException: boom: nested')).toBe(
    'java.lang.RuntimeException',
  );
  expect(exceptionClass('java.lang.OutOfMemoryError')).toBe('java.lang.OutOfMemoryError');
  expect(exceptionClass('  kotlin.UninitializedPropertyAccessException: lateinit')).toBe(
    'kotlin.UninitializedPropertyAccessException',
  );
});
