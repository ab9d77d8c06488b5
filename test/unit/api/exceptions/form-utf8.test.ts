/** The exception form's encoding check, with hand-written bodies. */
import { formIsUtf8 } from '../../../../api/exceptions/form-utf8';

test.each<[string, Buffer, boolean]>([
  ['plain ASCII fields', Buffer.from('package=com.ex&hash=ab'), true],
  ['raw UTF-8 bytes (€)', Buffer.from('st[]=\u20ac', 'utf8'), true],
  ['an escaped UTF-8 sequence (%E2%82%AC)', Buffer.from('st[]=%E2%82%AC'), true],
  ['a % that starts no escape, taken literally', Buffer.from('st[]=100%&lc[]=%zz'), true],
  ['a raw byte that is not UTF-8', Buffer.from([0x73, 0x74, 0x3d, 0xff]), false],
  ['an escape of a byte that is not UTF-8 (%FF)', Buffer.from('st[]=%FF'), false],
  ['a truncated escaped sequence (%E2%82)', Buffer.from('st[]=%E2%82'), false],
])('%s', (_name, body, expected) => {
  expect(formIsUtf8(body)).toBe(expected);
});
