/**
 * Seeded pseudo-random numbers for the fuzzers (sfc32). Every input has its own generator derived
 * from (run seed, target, input index), so any single input can be rebuilt without replaying the
 * ones before it, and inputs can be split between workers in any way.
 */

function mix32(x: number): number {
  let h = x | 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number, stream = 0, index = 0) {
    this.a = mix32(seed ^ 0x9e3779b9);
    this.b = mix32(stream + 0x7f4a7c15);
    this.c = mix32(index ^ 0x3c6ef372);
    this.d = 1;
    for (let i = 0; i < 12; i++) this.u32();
  }

  /** The generator of input `index` of `target` in the run seeded with `seed`. */
  static forInput(seed: number, target: string, index: number): Rng {
    return new Rng(seed, hashString(target), index);
  }

  u32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Uniform in [0, 1). */
  float(): number {
    return this.u32() / 0x100000000;
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.float() * n);
  }

  /** Uniform integer in [min, max]. */
  range(min: number, max: number): number {
    return min + this.int(max - min + 1);
  }

  chance(p: number): boolean {
    return this.float() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[this.int(items.length)] as T;
  }

  /** Picks by weight: `[[weight, value], ...]`. */
  weighted<T>(choices: ReadonlyArray<readonly [number, T]>): T {
    const total = choices.reduce((sum, [w]) => sum + w, 0);
    let x = this.float() * total;
    for (const [w, v] of choices) {
      x -= w;
      if (x < 0) return v;
    }
    return (choices[choices.length - 1] as readonly [number, T])[1];
  }

  bytes(n: number): Buffer {
    const out = Buffer.allocUnsafe(n);
    for (let i = 0; i < n; i++) out[i] = this.u32() & 0xff;
    return out;
  }
}

/** Values that break size, count and offset arithmetic, for fields of `bits` bits. */
export function interestingValue(rng: Rng, bits: 8 | 16 | 32, near?: number): number {
  const max = bits === 32 ? 0xffffffff : bits === 16 ? 0xffff : 0xff;
  const candidates = [
    0,
    1,
    2,
    3,
    4,
    7,
    8,
    0x7f,
    0x80,
    0xff,
    max,
    max - 1,
    max >>> 1,
    (max >>> 1) + 1,
  ];
  if (bits >= 16) candidates.push(0x100, 0x3fff, 0x4000, 0x7fff, 0x8000, 0xfffe);
  if (bits === 32) {
    candidates.push(0x10000, 0xfffff, 0x100000, 0x100001, 0x1000000, 0x7ffffff0, 0xfffffff0);
    candidates.push(64 * 1024 * 1024, 64 * 1024 * 1024 + 1, 32 * 1024 * 1024 + 1, 0x80000001);
  }
  if (near !== undefined && rng.chance(0.4)) {
    const v = near + rng.pick([-8, -4, -2, -1, 1, 2, 4, 8, 16, 1024, -1024]);
    return Math.min(max, Math.max(0, v)) >>> 0;
  }
  if (rng.chance(0.15)) return (rng.u32() & max) >>> 0;
  return (rng.pick(candidates) & max) >>> 0;
}
