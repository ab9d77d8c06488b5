/** The notice channel's messages between API processes: kicks and notices, anything else ignored. */
import { kickMessage, parseRelayMessage } from '../../../../api/push/hub';

test('a kick says whose stream to drop and which process keeps it', () => {
  expect(kickMessage('acc:pkg:dev-1', 'p1')).toBe(
    '{"kind":"kick","installationId":"acc:pkg:dev-1","processId":"p1"}',
  );
  expect(parseRelayMessage(kickMessage('acc:pkg:dev-1', 'owner'))).toEqual({
    kind: 'kick',
    installationId: 'acc:pkg:dev-1',
    processId: 'owner',
  });
});

test("a worker's notice (shared/notices/append-notice.ts) names its app", () => {
  const notice =
    '{"accountId":"a1","appId":"65f0c0ffee0000000000abcd","package":"dev.apkrelay.sample",' +
    '"apkId":null,"currentVersion":3,"entryId":"1700000000000-0"}';
  expect(parseRelayMessage(notice)).toEqual({ kind: 'notice', appId: '65f0c0ffee0000000000abcd' });
});

test('messages naming nothing are ignored; text that is not JSON throws', () => {
  for (const m of [
    '{"kind":"kick"}',
    '{"kind":"kick","installationId":""}',
    '{}',
    'null',
    '[]',
    '7',
  ])
    expect({ m, parsed: parseRelayMessage(m) }).toEqual({ m, parsed: null });
  expect(parseRelayMessage('{"kind":"kick","installationId":"i"}')).toEqual({
    kind: 'kick',
    installationId: 'i',
    processId: '',
  });
  expect(() => parseRelayMessage('{not json')).toThrow(SyntaxError);
});
