import { digest, html, raw } from '../../api/web/html';

test('interpolated values are escaped; Html values and raw markup are not', () => {
  const evil = `<script>alert("x")</script>&'`;
  const out = html`<p title="${evil}">${evil}${html`<b>${evil}</b>`}${raw('<i>ok</i>')}</p>`.text;
  expect(out).not.toContain('<script>');
  expect(out).toBe(
    '<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;">' +
      '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;' +
      '<b>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;</b><i>ok</i></p>',
  );
});

test('arrays are joined, null, undefined and false render nothing', () => {
  expect(html`${['<a>', html`<b></b>`]}|${null}|${undefined}|${false}|${0}`.text).toBe(
    '&lt;a&gt;<b></b>||||0',
  );
});

test('a digest shows a short prefix and keeps the whole value to copy', () => {
  const value = 'a'.repeat(64);
  const out = digest('sha256', value).text;
  expect(out).toContain('aaaaaaaaaaaa…');
  expect(out).toContain(`data-copy-text="${value}"`);
});
