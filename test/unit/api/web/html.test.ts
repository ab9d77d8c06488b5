import { digest, html, raw } from '../../../../api/web/html';
import { appsPage, type Viewer } from '../../../../api/web/views';

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

test('the apps list links a package URL-encoded, then HTML-escaped', () => {
  const viewer: Viewer = {
    account: { id: 'a1', email: 'x@example.com', plan: { installations: 5 }, roles: ['owner'] },
    user: { memberId: null, email: 'x@example.com', role: 'owner' },
    apiKey: 'ak_x',
    csrf: 'c',
  };
  const fleet = {
    installations: 0,
    online: 0,
    offline: 0,
    enabled: 0,
    versions: [],
    rollout: null,
    unhandledHourly: new Array<number>(24).fill(0),
    exceptions24h: 0,
  };
  const row = { currentVersion: null, fleet };
  const page = appsPage(viewer, [{ ...row, package: `a/b?c#d"e<f&g` }], 100);
  expect(page).toContain(
    '<a href="/ui/apps/a%2Fb%3Fc%23d%22e%3Cf%26g">a/b?c#d&quot;e&lt;f&amp;g</a>',
  );
  // The reviewer's package: ' is escaped for HTML after encodeURIComponent left it as is.
  const evil = appsPage(
    viewer,
    [{ ...row, package: "evil.pkg;filename*=UTF-8''evil.html;x=" }],
    100,
  );
  expect(evil).toContain(
    '<a href="/ui/apps/evil.pkg%3Bfilename*%3DUTF-8&#39;&#39;evil.html%3Bx%3D">',
  );
});

test('a member who is not an owner sees no API key and no form to regenerate it', () => {
  const account = { id: 'a1', email: 'x@example.com', plan: { installations: 5 }, roles: [] };
  const member: Viewer = {
    account: { ...account, roles: ['owner'] },
    user: { memberId: 'm1', email: 'dev@example.com', role: 'developer' },
    apiKey: null,
    csrf: 'c',
  };
  const page = appsPage(member, [], 100);
  expect(page).toContain('dev@example.com');
  expect(page).not.toContain('id="api-key"');
  expect(page).not.toContain('action="/ui/api-key"');
  const owner = appsPage({ ...member, apiKey: 'ak_secret' }, [], 100);
  expect(owner).toContain('value="ak_secret"');
  expect(owner).toContain('action="/ui/api-key"');
});
