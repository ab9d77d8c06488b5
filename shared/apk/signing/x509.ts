/**
 * The little of X.509 the verifier needs: the certificate's SubjectPublicKeyInfo, taken from the
 * original DER bytes (certificates are never re-encoded), and apksig's
 * `ApkSigningBlockUtils.encodePublicKey` quirk: an RSA modulus encoded as a negative INTEGER is
 * re-encoded with a leading zero byte, as Java does, before keys are compared.
 */
import { createHash, createPublicKey, type KeyObject } from 'node:crypto';

interface Tlv {
  tag: number;
  /** Offset of the tag byte. */
  start: number;
  /** Offset of the value. */
  valueStart: number;
  end: number;
}

class DerError extends Error {}

function readTlv(buf: Buffer, pos: number, limit: number = buf.length): Tlv {
  if (pos + 2 > limit) throw new DerError('truncated DER');
  const tag = buf[pos] as number;
  if ((tag & 0x1f) === 0x1f) throw new DerError('high-tag-number form not supported');
  let lenByte = buf[pos + 1] as number;
  let valueStart = pos + 2;
  let len: number;
  if (lenByte < 0x80) {
    len = lenByte;
  } else {
    lenByte &= 0x7f;
    if (lenByte === 0 || lenByte > 4) throw new DerError('unsupported DER length');
    if (valueStart + lenByte > limit) throw new DerError('truncated DER length');
    len = 0;
    for (let i = 0; i < lenByte; i++) len = len * 256 + (buf[valueStart + i] as number);
    valueStart += lenByte;
  }
  const end = valueStart + len;
  if (end > limit) throw new DerError('DER value runs past its container');
  return { tag, start: pos, valueStart, end };
}

function children(buf: Buffer, parent: Tlv): Tlv[] {
  const out: Tlv[] = [];
  let pos = parent.valueStart;
  while (pos < parent.end) {
    const child = readTlv(buf, pos, parent.end);
    out.push(child);
    pos = child.end;
  }
  return out;
}

/** The SubjectPublicKeyInfo DER of a certificate, or `null` when it cannot be parsed. */
export function certificatePublicKeyInfo(cert: Buffer): Buffer | null {
  try {
    const top = readTlv(cert, 0);
    if (top.tag !== 0x30 || top.end !== cert.length) return null;
    const tbs = children(cert, top)[0];
    if (tbs === undefined || tbs.tag !== 0x30) return null;
    const fields = children(cert, tbs);
    const offset = fields[0]?.tag === 0xa0 ? 1 : 0;
    const spki = fields[offset + 5];
    if (spki === undefined || spki.tag !== 0x30) return null;
    return cert.subarray(spki.start, spki.end);
  } catch (err) {
    if (err instanceof DerError) return null;
    throw err;
  }
}

function derLength(len: number): Buffer {
  if (len < 0x80) return Buffer.from([len]);
  const bytes: number[] = [];
  for (let n = len; n > 0; n = Math.floor(n / 256)) bytes.unshift(n % 256);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

function der(tag: number, value: Buffer): Buffer {
  return Buffer.concat([Buffer.from([tag]), derLength(value.length), value]);
}

const RSA_OID = Buffer.from('06092a864886f70d010101', 'hex');

/**
 * The public key as apksig's `encodePublicKey` would encode it: unchanged, except an RSA key
 * whose modulus is a negative INTEGER gets a leading zero byte.
 */
export function canonicalPublicKey(spki: Buffer): Buffer {
  try {
    const top = readTlv(spki, 0);
    const [algId, bits] = children(spki, top);
    if (algId === undefined || bits === undefined || bits.tag !== 0x03) return spki;
    const oid = children(spki, algId)[0];
    if (oid === undefined || !spki.subarray(oid.start, oid.end).equals(RSA_OID)) return spki;
    const rsaKey = readTlv(spki, bits.valueStart + 1, bits.end);
    const [modulus, exponent] = children(spki, rsaKey);
    if (modulus === undefined || exponent === undefined) return spki;
    if (((spki[modulus.valueStart] ?? 0) & 0x80) === 0) return spki;
    const fixedModulus = der(
      0x02,
      Buffer.concat([Buffer.from([0]), spki.subarray(modulus.valueStart, modulus.end)]),
    );
    const rsa = der(
      0x30,
      Buffer.concat([fixedModulus, spki.subarray(exponent.start, exponent.end)]),
    );
    const bitString = der(
      0x03,
      Buffer.concat([spki.subarray(bits.valueStart, bits.valueStart + 1), rsa]),
    );
    return der(0x30, Buffer.concat([spki.subarray(algId.start, algId.end), bitString]));
  } catch (err) {
    if (err instanceof DerError) return spki;
    throw err;
  }
}

/** A node:crypto public key from SubjectPublicKeyInfo DER, or `null` if node refuses it. */
export function publicKeyFromSpki(spki: Buffer): KeyObject | null {
  try {
    return createPublicKey({ key: spki, format: 'der', type: 'spki' });
  } catch {
    return null;
  }
}

export function sha256Hex(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}
