/**
 * Structure-blind mutations (AFL-style "havoc"): bit flips, interesting values, inserted,
 * deleted and duplicated ranges, truncation, and splices between two inputs. Half of the
 * positions are drawn from `hot` ranges (the parts of a file that parsers read first).
 */
import { interestingValue, type Rng } from './random';

export type Range = readonly [start: number, end: number];

function position(rng: Rng, length: number, hot: readonly Range[]): number {
  if (length === 0) return 0;
  if (hot.length > 0 && rng.chance(0.5)) {
    const [start, end] = rng.pick(hot);
    const s = Math.max(0, Math.min(start, length - 1));
    const e = Math.max(s + 1, Math.min(end, length));
    return rng.range(s, e - 1);
  }
  return rng.int(length);
}

function writeInteresting(rng: Rng, buf: Buffer, at: number): void {
  const width = rng.pick([1, 2, 4] as const);
  if (at + width > buf.length) return;
  if (width === 1) buf.writeUInt8(interestingValue(rng, 8), at);
  else if (width === 2) buf.writeUInt16LE(interestingValue(rng, 16, buf.readUInt16LE(at)), at);
  else buf.writeUInt32LE(interestingValue(rng, 32, buf.readUInt32LE(at)), at);
}

/** One havoc step; may return a buffer of another length. */
export function havocStep(rng: Rng, input: Buffer, hot: readonly Range[] = []): Buffer {
  const buf = input;
  const n = buf.length;
  switch (rng.int(9)) {
    case 0: {
      if (n === 0) return buf;
      const at = position(rng, n, hot);
      buf[at] = (buf[at] ?? 0) ^ (1 << rng.int(8));
      return buf;
    }
    case 1: {
      if (n === 0) return buf;
      const at = position(rng, n, hot);
      buf[at] = rng.u32() & 0xff;
      return buf;
    }
    case 2:
    case 3:
      if (n > 0) writeInteresting(rng, buf, position(rng, n, hot));
      return buf;
    case 4: {
      const at = position(rng, n + 1, hot);
      const len = rng.chance(0.8) ? rng.range(1, 16) : rng.range(17, 4096);
      const fill = rng.chance(0.5) ? rng.bytes(len) : Buffer.alloc(len, rng.pick([0, 0xff, 0x41]));
      return Buffer.concat([buf.subarray(0, at), fill, buf.subarray(at)]);
    }
    case 5: {
      if (n === 0) return buf;
      const at = position(rng, n, hot);
      const len = Math.min(n - at, rng.chance(0.8) ? rng.range(1, 16) : rng.range(17, 4096));
      return Buffer.concat([buf.subarray(0, at), buf.subarray(at + len)]);
    }
    case 6: {
      if (n === 0) return buf;
      const from = rng.int(n);
      const len = Math.min(n - from, rng.range(1, 512));
      const at = position(rng, n + 1, hot);
      const copy = Buffer.from(buf.subarray(from, from + len));
      return rng.chance(0.5)
        ? Buffer.concat([buf.subarray(0, at), copy, buf.subarray(at)])
        : (copy.copy(buf, Math.min(at, n - 1)), buf);
    }
    case 7:
      return n === 0 ? buf : buf.subarray(0, position(rng, n, hot));
    default: {
      if (n < 2) return buf;
      const from = rng.int(n);
      const to = rng.int(n);
      const len = Math.min(n - Math.max(from, to), rng.range(1, 64));
      buf.copy(buf, to, from, from + len);
      return buf;
    }
  }
}

/** 1 to `maxSteps` havoc steps on a copy of `input`. */
export function havoc(rng: Rng, input: Buffer, hot: readonly Range[] = [], maxSteps = 8): Buffer {
  let buf = Buffer.from(input);
  const steps = rng.chance(0.5) ? 1 : rng.range(2, maxSteps);
  for (let i = 0; i < steps; i++) buf = Buffer.from(havocStep(rng, buf, hot));
  return buf;
}

/** The head of `a` joined to the tail of `b`, at aligned or unaligned cut points. */
export function splice(rng: Rng, a: Buffer, b: Buffer): Buffer {
  const align = rng.pick([1, 4, 512]);
  const cutA = Math.floor(rng.int(a.length + 1) / align) * align;
  const cutB = rng.chance(0.5)
    ? Math.max(0, b.length - (a.length - cutA))
    : Math.floor(rng.int(b.length + 1) / align) * align;
  return Buffer.concat([a.subarray(0, cutA), b.subarray(cutB)]);
}
