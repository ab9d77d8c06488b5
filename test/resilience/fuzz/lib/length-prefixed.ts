/**
 * Helpers for the length-prefixed structures of the APK Signing Block (uint32 LE length, then
 * that many bytes) and for DER, used to aim mutations at length fields and tags.
 */
import { interestingValue, type Rng } from './random';

export function lp(...parts: Buffer[]): Buffer {
  const body = Buffer.concat(parts);
  const len = Buffer.alloc(4);
  len.writeUInt32LE(body.length, 0);
  return Buffer.concat([len, body]);
}

export function u32(v: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(v >>> 0, 0);
  return b;
}

/** Strict reader for well-formed (seed) structures; throws on anything unexpected. */
export class SeqReader {
  pos = 0;
  constructor(readonly buf: Buffer) {}
  get done(): boolean {
    return this.pos >= this.buf.length;
  }
  u32(): number {
    if (this.pos + 4 > this.buf.length) throw new Error('short');
    const v = this.buf.readUInt32LE(this.pos);
    this.pos += 4;
    return v;
  }
  lp(): Buffer {
    const n = this.u32();
    if (this.pos + n > this.buf.length) throw new Error('short');
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }
  seq(): Buffer[] {
    const r = new SeqReader(this.lp());
    const out: Buffer[] = [];
    while (!r.done) out.push(r.lp());
    return out;
  }
}

/**
 * Offsets of uint32 fields that read as length prefixes of nested sequences, found by walking
 * the buffer as if it were one (a heuristic: it also finds some fields that are not lengths).
 */
export function lengthFields(buf: Buffer, base = 0, depth = 0, out: number[] = []): number[] {
  let pos = 0;
  while (pos + 4 <= buf.length && out.length < 4096) {
    const len = buf.readUInt32LE(pos);
    if (len > buf.length - pos - 4) break;
    out.push(base + pos);
    if (depth < 8 && len >= 4) {
      lengthFields(buf.subarray(pos + 4, pos + 4 + len), base + pos + 4, depth + 1, out);
    }
    pos += 4 + len;
  }
  return out;
}

/** Sets one discovered length field to a hostile value; false when there is none. */
export function mutateLengthField(rng: Rng, buf: Buffer, fields: number[]): boolean {
  if (fields.length === 0) return false;
  const at = rng.pick(fields);
  const current = buf.readUInt32LE(at);
  const value = rng.chance(0.5)
    ? rng.pick([
        0,
        1,
        3,
        4,
        current - 1,
        current + 1,
        current + 4,
        0x7fffffff,
        0x80000000,
        0xffffffff,
        buf.length - at - 4,
        buf.length - at - 3,
      ])
    : interestingValue(rng, 32, current);
  buf.writeUInt32LE(Math.max(0, value) >>> 0, at);
  return true;
}

interface Tlv {
  readonly start: number;
  readonly lengthStart: number;
  readonly valueStart: number;
  readonly end: number;
}

/** The TLVs of well-formed DER, constructed ones walked into (bounded). */
export function derNodes(der: Buffer, start = 0, end = der.length, out: Tlv[] = []): Tlv[] {
  let pos = start;
  while (pos + 2 <= end && out.length < 2000) {
    const tag = der[pos] as number;
    let len = der[pos + 1] as number;
    let valueStart = pos + 2;
    if (len & 0x80) {
      const n = len & 0x7f;
      if (n === 0 || n > 4 || valueStart + n > end) return out;
      len = 0;
      for (let i = 0; i < n; i++) len = len * 256 + (der[valueStart + i] as number);
      valueStart += n;
    }
    if (valueStart + len > end) return out;
    out.push({ start: pos, lengthStart: pos + 1, valueStart, end: valueStart + len });
    if (tag & 0x20) derNodes(der, valueStart, valueStart + len, out);
    pos = valueStart + len;
  }
  return out;
}

const LENGTH_FORMS = [
  [0x80],
  [0x84, 0xff, 0xff, 0xff, 0xff],
  [0x84, 0x7f, 0xff, 0xff, 0xff],
  [0x85, 0x01, 0x00, 0x00, 0x00, 0x00],
  [0x88, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff],
  [0xff],
  [0x81, 0x00],
  [0x83, 0x00, 0x00, 0x01],
];

/** One hostile change to a DER structure (certificate, public key, PKCS #7). */
export function mutateDer(rng: Rng, der: Buffer): Buffer {
  const nodes = derNodes(der);
  if (nodes.length === 0) return Buffer.from(der);
  const n = rng.pick(nodes);
  const before = der.subarray(0, n.start);
  const tag = der.subarray(n.start, n.lengthStart);
  const value = der.subarray(n.valueStart, n.end);
  const after = der.subarray(n.end);
  switch (rng.int(6)) {
    case 0:
      return Buffer.concat([before, tag, Buffer.from(rng.pick(LENGTH_FORMS)), value, after]);
    case 1: {
      const len = Math.max(0, value.length + rng.pick([-2, -1, 1, 2, 128]));
      const form = len < 0x80 ? [len] : [0x82, (len >> 8) & 0xff, len & 0xff];
      return Buffer.concat([before, tag, Buffer.from(form), value, after]);
    }
    case 2:
      return Buffer.concat([
        before,
        Buffer.from([rng.pick([0x00, 0x1f, 0x3f, 0x05, 0xa0, 0x30, 0x31, 0x02, 0x06, 0xff])]),
        der.subarray(n.lengthStart),
      ]);
    case 3:
      return der.subarray(0, n.valueStart + rng.int(value.length + 1));
    case 4: {
      // Same length, different content (keeps every enclosing length right).
      const out = Buffer.from(der);
      for (let i = n.valueStart; i < n.end; i++) if (rng.chance(0.2)) out[i] = rng.u32() & 0xff;
      return out;
    }
    default:
      return Buffer.concat([
        before,
        der.subarray(n.start, n.end),
        der.subarray(n.start, n.end),
        after,
      ]);
  }
}
