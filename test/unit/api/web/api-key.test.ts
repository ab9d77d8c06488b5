/**
 * The header's API key (issue 35 #5): `••••` and the last four characters until revealed; the
 * whole key only inside the closed `<details>`, in a read-only field. Literal keys.
 */
import { apiKeyReveal, maskedKey } from '../../../../api/web/api-key';

test('masked: four dots and the last four characters', () => {
  expect(maskedKey('ak_0123456789abcdefWXYZ')).toBe('••••WXYZ');
  expect(maskedKey('abc')).toBe('••••abc');
});

test('the whole key only inside the closed details, after the summary', () => {
  const out = apiKeyReveal('ak_secret"<1234').text;
  expect(out).toMatch(/^<details class="key">/);
  expect(out).not.toMatch(/<details[^>]*\bopen\b/);
  const summary = out.slice(0, out.indexOf('</summary>'));
  expect(summary).toContain('<code>••••1234</code>');
  expect(summary).not.toContain('secret');
  expect(out).toContain('<input id="api-key" readonly value="ak_secret&quot;&lt;1234" />');
});
