/**
 * Canonical JSON (device-client/protocol/canonical-json.ts) on what the shared vectors cannot
 * carry, JavaScript values with no JSON text: undefined members are left out at every level, and
 * insertion order never matters. The rest is pinned by the protocol vectors.
 */
import { canonicalJson } from '../../../../device-client/protocol/canonical-json';

test('undefined members are left out at every level', () => {
  expect(canonicalJson({ b: undefined, a: { d: undefined, c: 1 }, e: [{ f: undefined }] })).toBe(
    '{"a":{"c":1},"e":[{}]}',
  );
});

test('two objects built in different orders give one text', () => {
  const one = { z: 1, a: { y: 2, b: 3 } };
  const two = { a: { b: 3, y: 2 }, z: 1 };
  expect(canonicalJson(one)).toBe('{"a":{"b":3,"y":2},"z":1}');
  expect(canonicalJson(two)).toBe('{"a":{"b":3,"y":2},"z":1}');
});
