/** MASTER_KEY_PREVIOUS: comma-separated base64 keys of before a rotation (docs/key-rotation.md). */
import { ConfigError, loadConfig } from '../../../shared/config';

const key = (byte: number) => Buffer.alloc(32, byte);
const b64 = (byte: number) => key(byte).toString('base64');

test('unset: no previous keys', () => {
  expect(loadConfig({ MASTER_KEY: b64(1) }).masterKeyPrevious).toEqual([]);
});

test('comma-separated keys are read in order, spaces allowed', () => {
  const config = loadConfig({ MASTER_KEY: b64(3), MASTER_KEY_PREVIOUS: `${b64(2)}, ${b64(1)}` });
  expect(config.masterKey).toEqual(key(3));
  expect(config.masterKeyPrevious).toEqual([key(2), key(1)]);
});

test.each([
  ['a key that is not 32 bytes', { MASTER_KEY: b64(3), MASTER_KEY_PREVIOUS: `${b64(2)},AAAA` }],
  ['an empty item', { MASTER_KEY: b64(3), MASTER_KEY_PREVIOUS: `${b64(2)},` }],
  ['previous keys without MASTER_KEY', { MASTER_KEY_PREVIOUS: b64(2) }],
  ['a repeated key', { MASTER_KEY: b64(3), MASTER_KEY_PREVIOUS: `${b64(2)},${b64(2)}` }],
  ['MASTER_KEY among the previous', { MASTER_KEY: b64(3), MASTER_KEY_PREVIOUS: b64(3) }],
])('refused: %s', (_name, env) => {
  let error: unknown;
  try {
    loadConfig(env);
  } catch (err) {
    error = err;
  }
  expect(error).toBeInstanceOf(ConfigError);
  expect((error as ConfigError).problems).toHaveLength(1);
  expect((error as ConfigError).problems[0]).toMatch(/MASTER_KEY_PREVIOUS/);
});
