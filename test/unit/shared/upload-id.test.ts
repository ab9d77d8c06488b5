/** Upload ids (issue 31): 128 random bits, URL-safe; the old ObjectId shape still accepted. */
import { isObjectIdShaped, isUploadId, newUploadId } from '../../../shared/upload-id';

test('a new id is 22 base64url characters (16 bytes) and differs each time', () => {
  const ids = Array.from({ length: 200 }, () => newUploadId());
  for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
  expect(Buffer.from(ids[0]!, 'base64url')).toHaveLength(16);
  expect(new Set(ids).size).toBe(200);
});

test.each([
  ['Zm9vYmFyYmF6cXV4MTIzNA', true],
  ['AAAAAAAAAAAAAAAAAAAAA-', true],
  ['65a1b2c3d4e5f60718293a4b', true],
  ['65A1B2C3D4E5F60718293A4B', false],
  ['Zm9vYmFyYmF6cXV4MTIzN', false],
  ['Zm9vYmFyYmF6cXV4MTIzNA=', false],
  ['Zm9vYmFyYmF6cXV4MT/zNA', false],
  ['../../../../etc/passwd', false],
  ['', false],
])('isUploadId(%j) is %s', (value, expected) => {
  expect(isUploadId(value)).toBe(expected);
});

test('only 24 lower-case hex characters are of the old shape', () => {
  expect(isObjectIdShaped('65a1b2c3d4e5f60718293a4b')).toBe(true);
  expect(isObjectIdShaped('Zm9vYmFyYmF6cXV4MTIzNA')).toBe(false);
});
