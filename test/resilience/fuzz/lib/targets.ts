/**
 * The three fuzz targets, each through its public functions: the ZIP reader (`openZip`,
 * `checkEntryLayout`, every entry streamed), the AXML reader (`readManifest`) and the signature
 * verifier (`verifyApk`). Each target builds input `i` from the corpus with its own seeded
 * generator, and runs one input to an outcome: the parser's own verdict, or a crash.
 */
import { verifyApk } from '../../../../shared/apk/verify-apk';
import { ApkFormatError } from '../../../../shared/apk/issues';
import { readManifest } from '../../../../shared/apk/manifest/read-manifest';
import { bufferSource } from '../../../../shared/apk/sources';
import { checkEntryLayout, openZip } from '../../../../shared/apk/zip';
import { mutateAxml } from './axml-mutators';
import { havoc, splice, type Range } from './byte-mutators';
import type { Corpus, Seed } from './corpus';
import { mutateEntries } from './jar-mutators';
import type { Rng } from './random';
import { mutateSigning } from './signing-mutators';
import { mutateZip } from './zip-mutators';
import { CANARY } from './canary-target';
import { changedOutsideBlock, signedBase } from './signed-bytes';

export type TargetName = 'zip' | 'axml' | 'verify' | 'canary';

export interface FuzzInput {
  readonly bytes: Buffer;
  /** Seed file and mutators that made it. */
  readonly how: string;
  /** The one seed it was made from (not for splices of two). */
  readonly base?: Seed;
}

export interface Outcome {
  /** The parser's answer: an error code, or `ok`. */
  readonly verdict: string;
  /** Set when the parser failed in a way it should not: an untyped exception, an internal error. */
  readonly crash?: { readonly message: string; readonly stack?: string };
  /** The input changed signed bytes of its base (lib/signed-bytes.ts): it must be refused. */
  readonly mustRefuse?: boolean;
  /** Set when a verdict was wrong: `ok` for an input that must be refused. */
  readonly undeserved?: string;
}

/**
 * Messages of JavaScript engine and Node.js errors (TypeError, RangeError, ...). The verifier
 * turns exceptions into issues, so a message like these in a verdict is a crash it swallowed.
 */
const ENGINE_ERROR =
  /Cannot (read|set) propert|is not a function|is not iterable|is not a constructor|Maximum call stack|Invalid (array|typed array|string) length|Array buffer allocation failed|The value of "[^"]+" is out of range|outside (of )?(the )?buffer bounds|The "[^"]+" argument must be|Cannot convert|Cannot mix BigInt/;

export function looksLikeEngineError(message: string): boolean {
  return ENGINE_ERROR.test(message);
}

function thrown(err: unknown): Outcome {
  if (err instanceof ApkFormatError && !looksLikeEngineError(err.message))
    return { verdict: err.code };
  const e = err instanceof Error ? err : new Error(String(err));
  return {
    verdict: 'CRASH',
    crash: {
      message: `${e.name}: ${e.message}`,
      ...(e.stack === undefined ? {} : { stack: e.stack }),
    },
  };
}

/** Regions of a seed most parsers read first: EOCD, central directory, signing block, first header. */
function hotRanges(seed: Seed): Range[] {
  const l = seed.layout;
  if (l === null) return [[Math.max(0, seed.bytes.length - 256), seed.bytes.length]];
  const ranges: Range[] = [
    [l.eocdOffset, l.eocdOffset + 22],
    [l.cdOffset, l.cdOffset + l.cdSize],
    [0, 64],
  ];
  if (l.signingBlock)
    ranges.push([l.signingBlock.offset, l.signingBlock.offset + l.signingBlock.size]);
  return ranges;
}

function pickZip(rng: Rng, corpus: Corpus): Seed {
  return rng.pick(corpus.zips);
}

function byteLevel(rng: Rng, corpus: Corpus): FuzzInput {
  if (rng.chance(0.3)) {
    const a = rng.pick(corpus.seeds);
    const b = rng.pick(corpus.seeds);
    const spliced = splice(rng, a.bytes, b.bytes);
    return {
      bytes: rng.chance(0.5) ? havoc(rng, spliced) : spliced,
      how: `${a.name}+${b.name}:splice`,
    };
  }
  const s = rng.pick(corpus.seeds);
  return { bytes: havoc(rng, s.bytes, hotRanges(s)), how: `${s.name}:havoc`, base: s };
}

function zipInput(rng: Rng, corpus: Corpus): FuzzInput {
  if (rng.chance(0.3)) return byteLevel(rng, corpus);
  const s = pickZip(rng, corpus);
  const m = mutateZip(rng, s.bytes, s.layout!);
  const bytes = rng.chance(0.15) ? havoc(rng, m.bytes, [], 3) : m.bytes;
  return { bytes, how: `${s.name}:${m.how}` };
}

function axmlInput(rng: Rng, corpus: Corpus): FuzzInput {
  const xml = rng.pick(corpus.manifests);
  const other = rng.pick(corpus.manifests);
  const choice = rng.float();
  if (choice < 0.2) return { bytes: havoc(rng, xml, [[0, 128]]), how: 'manifest:havoc' };
  if (choice < 0.27) {
    const s = splice(rng, xml, other);
    return { bytes: s, how: 'manifest:splice' };
  }
  let bytes = xml;
  const hows: string[] = [];
  const steps = rng.chance(0.7) ? 1 : rng.range(2, 3);
  for (let i = 0; i < steps; i++) {
    const m = mutateAxml(rng, bytes, other);
    bytes = m.bytes;
    hows.push(m.how);
  }
  if (rng.chance(0.1)) bytes = havoc(rng, bytes, [], 2);
  return { bytes, how: `manifest:${hows.join(',')}` };
}

function verifyInput(rng: Rng, corpus: Corpus): FuzzInput {
  const choice = rng.float();
  if (choice < 0.45 && corpus.signed.length > 0) {
    const s = rng.pick(corpus.signed);
    const m = mutateSigning(rng, s.bytes, s.layout!, corpus.keys);
    if (m !== null) return { bytes: m.bytes, how: `${s.name}:${m.how}`, base: s };
  }
  if (choice < 0.65) {
    const s = pickZip(rng, corpus);
    const m = mutateEntries(rng, s.bytes, rng.pick(corpus.manifests));
    if (m !== null) return { bytes: m.bytes, how: `${s.name}:${m.how}`, base: s };
  }
  if (choice < 0.82) {
    const s = pickZip(rng, corpus);
    const m = mutateZip(rng, s.bytes, s.layout!);
    return { bytes: m.bytes, how: `${s.name}:${m.how}`, base: s };
  }
  return byteLevel(rng, corpus);
}

async function runZip(bytes: Buffer): Promise<Outcome> {
  let verdict = 'ok';
  try {
    const zip = await openZip(bufferSource(bytes));
    try {
      await checkEntryLayout(zip);
    } catch (err) {
      const o = thrown(err);
      if (o.crash) return o;
      verdict = o.verdict;
    }
    // Every entry is streamed even after a layout error: the reader must stay bounded on each.
    for (const entry of zip.entries.slice(0, 512)) {
      try {
        for await (const chunk of zip.openEntry(entry)) void chunk;
      } catch (err) {
        const o = thrown(err);
        if (o.crash) return o;
        if (verdict === 'ok') verdict = o.verdict;
      }
    }
  } catch (err) {
    return thrown(err);
  }
  return { verdict };
}

function runAxml(bytes: Buffer): Promise<Outcome> {
  try {
    readManifest(bytes);
    return Promise.resolve({ verdict: 'ok' });
  } catch (err) {
    return Promise.resolve(thrown(err));
  }
}

/** Whether `input` must be refused (it changed signed bytes of its base), and where. */
function signedChange(input: FuzzInput | undefined): string | null {
  const base = input?.base && signedBase(input.base);
  if (!input || !base) return null;
  const at = changedOutsideBlock(input.bytes, base);
  return at === null ? null : `byte ${at} changed outside the signing block of ${base.name}`;
}

async function runVerify(bytes: Buffer, input?: FuzzInput): Promise<Outcome> {
  let v;
  try {
    v = await verifyApk(bufferSource(bytes));
  } catch (err) {
    const e = err instanceof Error ? err : new Error(String(err));
    return {
      verdict: 'CRASH',
      crash: {
        message: `verifyApk threw ${e.name}: ${e.message}`,
        ...(e.stack ? { stack: e.stack } : {}),
      },
    };
  }
  // Warnings can number 100,000s (one per unknown record); engine errors would be among the
  // first ones or in the errors.
  for (const i of [...v.errors, ...v.warnings.slice(0, 1000)]) {
    if (i.code === 'INTERNAL_ERROR' || looksLikeEngineError(i.message)) {
      return { verdict: 'CRASH', crash: { message: `${i.code}: ${i.message}` } };
    }
  }
  if (v.verified !== (v.errors.length === 0)) {
    return {
      verdict: 'CRASH',
      crash: { message: `verified=${v.verified} with ${v.errors.length} errors` },
    };
  }
  const verdict = v.verified ? 'ok' : (v.errors[0]?.code ?? 'no-code');
  const change = signedChange(input);
  if (change === null) return { verdict };
  return {
    verdict,
    mustRefuse: true,
    ...(v.verified && { undeserved: `verified, but ${change}` }),
  };
}

export interface Target {
  readonly name: TargetName;
  /** Input `index` of the run, built with its own generator `rng`. */
  generate(rng: Rng, corpus: Corpus, index: number): FuzzInput;
  /** `input` (with its base seed) lets a target judge the verdict, not only its form. */
  run(bytes: Buffer, input?: FuzzInput): Promise<Outcome>;
  /** Whether the corpus needs the signers' private keys. */
  readonly needsKeys: boolean;
}

export const TARGETS: Readonly<Record<TargetName, Target>> = {
  zip: { name: 'zip', generate: zipInput, run: runZip, needsKeys: false },
  axml: { name: 'axml', generate: axmlInput, run: runAxml, needsKeys: false },
  verify: { name: 'verify', generate: verifyInput, run: runVerify, needsKeys: true },
  canary: CANARY,
};
