/**
 * Password hashing with scrypt (memory-hard). A hash names its parameters:
 * `scrypt$N$r$p$<salt base64>$<key base64>`, so they can rise without breaking stored hashes: any
 * hash of this form verifies, and `needsRehash` tells the caller to store a new one (done at login).
 * New hashes use OWASP's scrypt recommendation (Password Storage Cheat Sheet): N=2^17, r=8, p=1,
 * with a 16-byte salt and a 32-byte key. That takes 128 MiB of memory per hash, more than Node's
 * default scrypt `maxmem` (32 MiB), so `maxmem` is set from the parameters.
 */
import { randomBytes, scrypt as scryptCb, timingSafeEqual } from 'node:crypto';

export interface ScryptParams {
  readonly N: number;
  readonly r: number;
  readonly p: number;
}

export interface PasswordHash extends ScryptParams {
  readonly salt: Buffer;
  readonly key: Buffer;
}

export const SCRYPT_PARAMS: ScryptParams = Object.freeze({ N: 2 ** 17, r: 8, p: 1 });
const SALT_BYTES = 16;
const KEY_BYTES = 32;
/** Bounds on what a stored hash may ask for: memory is about 128 * N * r * p bytes. */
const MAX_N = 2 ** 20;
const MAX_R = 32;
const MAX_P = 16;
const MAX_MEMORY = 2 ** 30;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

function scrypt(password: string, salt: Buffer, params: ScryptParams, length: number) {
  const { N, r, p } = params;
  // scrypt needs 128*N*r bytes for its table and 128*r*p for its blocks; 1 MiB of headroom.
  const maxmem = 128 * N * r * p + 128 * r * (p + 2) + 2 ** 20;
  return new Promise<Buffer>((resolve, reject) =>
    scryptCb(password.normalize('NFKC'), salt, length, { N, r, p, maxmem }, (err, key) =>
      err ? reject(err) : resolve(key),
    ),
  );
}

const whole = (text: string | undefined, max: number): number | null =>
  text && /^[1-9][0-9]{0,8}$/.test(text) && Number(text) <= max ? Number(text) : null;

const bytes = (text: string | undefined, min: number, max: number): Buffer | null => {
  if (!text || !BASE64.test(text)) return null;
  const buffer = Buffer.from(text, 'base64');
  return buffer.length >= min && buffer.length <= max ? buffer : null;
};

/** The parts of `scrypt$N$r$p$salt$key`, or null when it is not one (or asks for too much). */
export function parsePasswordHash(encoded: string): PasswordHash | null {
  const fields = encoded.split('$');
  if (fields.length !== 6 || fields[0] !== 'scrypt') return null;
  const [N, r, p] = [whole(fields[1], MAX_N), whole(fields[2], MAX_R), whole(fields[3], MAX_P)];
  const salt = bytes(fields[4], 8, 64);
  const key = bytes(fields[5], 16, 64);
  if (!N || N < 2 || (N & (N - 1)) !== 0 || !r || !p || !salt || !key) return null;
  if (128 * N * r * p > MAX_MEMORY) return null;
  return { N, r, p, salt, key };
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await scrypt(password, salt, SCRYPT_PARAMS, KEY_BYTES);
  const { N, r, p } = SCRYPT_PARAMS;
  return ['scrypt', N, r, p, salt.toString('base64'), key.toString('base64')].join('$');
}

/** Whether `password` is the one hashed in `encoded` (compared in constant time). */
export async function verifyPassword(password: string, encoded: string): Promise<boolean> {
  const stored = parsePasswordHash(encoded);
  if (!stored) return false;
  const actual = await scrypt(password, stored.salt, stored, stored.key.length);
  return timingSafeEqual(actual, stored.key);
}

/** Whether a stored hash was made with other parameters than new hashes get. */
export function needsRehash(encoded: string): boolean {
  const stored = parsePasswordHash(encoded);
  const { N, r, p } = SCRYPT_PARAMS;
  return !stored || stored.N !== N || stored.r !== r || stored.p !== p;
}
