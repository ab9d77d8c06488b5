/**
 * verifyV1 on corrupted and hostile input: it must return issues (never throw), never report
 * "verified" together with errors, and stay fast.
 */
import { ApkFormatError } from '../../../../../shared/apk/issues';
import { verifyV1, type V1Result } from '../../../../../shared/apk/v1';
import type { ZipArchive } from '../../../../../shared/apk/zip/types';
import {
  makeSigner,
  memoryZip,
  signJar,
  type Files,
  type TestSigner,
} from '../../../../helpers/apk/jar-signing-kit';

const ANY = 0x7fffffff;
const FILES: Files = [
  ['AndroidManifest.xml', Buffer.from('<manifest/>')],
  ['classes.dex', Buffer.alloc(1000, 3)],
];

/** Deterministic PRNG (mulberry32) so failures reproduce. */
function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function mutate(data: Buffer, rand: () => number): Buffer {
  const out = Buffer.from(data);
  const n = 1 + Math.floor(rand() * 4);
  for (let i = 0; i < n; i++) out[Math.floor(rand() * out.length)] = Math.floor(rand() * 256);
  return out;
}

const run = (zip: ZipArchive, minSdk = 24): Promise<V1Result> =>
  verifyV1(zip, { minSdk, maxSdk: ANY, foundSchemeIds: new Set() });

function expectConsistent(r: V1Result): void {
  if (r.verified) expect(r.errors).toEqual([]);
  else expect(r.errors.length).toBeGreaterThan(0);
  // An unexpected exception would surface as INTERNAL_ERROR: parsing must fail in a known way.
  expect(r.errors.map((e) => e.code)).not.toContain('INTERNAL_ERROR');
  for (const i of [...r.errors, ...r.warnings]) {
    expect(typeof i.code).toBe('string');
    expect(typeof i.message).toBe('string');
  }
}

let signed: Files;
let signer: TestSigner;
beforeAll(() => {
  signer = makeSigner('ec');
  signed = signJar(FILES, [signer], { block: { signedAttrs: 'standard' } });
});

describe('verifyV1 on corrupted signature files', () => {
  it('verifies the uncorrupted APK (so corruption is what the cases below exercise)', async () => {
    expect((await run(memoryZip(signed))).errors).toEqual([]);
  });

  /**
   * How many of 1000 changed copies must be refused. The .SF file is signed whole (its digest is a
   * signed attribute): every change must fail. Most bytes of the signature block (signed
   * attributes, signature, the signer's key) and of the manifest (each entry's section is digested
   * in the .SF) are covered too; a few are not (the certificate's own self-signature, which JAR
   * verification does not check; bytes between sections), so those two need 9 in 10.
   */
  it.each([
    ['META-INF/SIGNER.EC', 900],
    ['META-INF/SIGNER.SF', 'all'],
    ['META-INF/MANIFEST.MF', 900],
  ] as const)(
    'refuses 1000 random corruptions of %s (%s of the changed ones)',
    async (target, floor) => {
      const rand = prng(target.length);
      const original = signed.find(([n]) => n === target)?.[1] as Buffer;
      let changed = 0;
      let refused = 0;
      for (let i = 0; i < 1000; i++) {
        const bad = mutate(original, rand);
        const r = await run(memoryZip(signed.map(([n, d]) => [n, n === target ? bad : d])));
        expectConsistent(r);
        if (bad.equals(original)) continue;
        changed += 1;
        if (!r.verified) refused += 1;
      }
      expect(changed).toBeGreaterThan(950);
      expect(refused).toBeGreaterThanOrEqual(floor === 'all' ? changed : floor);
    },
  );

  it('returns issues for every truncation of the signature block', async () => {
    const original = signed.find(([n]) => n === 'META-INF/SIGNER.EC')?.[1] as Buffer;
    for (let len = 0; len < original.length; len++) {
      const r = await run(
        memoryZip(signed.map(([n, d]) => [n, n === 'META-INF/SIGNER.EC' ? d.subarray(0, len) : d])),
      );
      expect(r.verified).toBe(false);
      expect(r.errors.map((e) => e.code)).toEqual(['JAR_SIG_PARSE_EXCEPTION']);
    }
  });

  it('handles a signature block of random bytes and one that is a huge length header', async () => {
    const rand = prng(7);
    const noise = Buffer.from(Array.from({ length: 4096 }, () => Math.floor(rand() * 256)));
    const header = Buffer.from('3084ffffffff3084ffffffff', 'hex');
    for (const block of [noise, header, Buffer.alloc(0)]) {
      const r = await run(
        memoryZip(signed.map(([n, d]) => [n, n === 'META-INF/SIGNER.EC' ? block : d])),
      );
      expect(r.errors.map((e) => e.code)).toEqual(['JAR_SIG_PARSE_EXCEPTION']);
    }
  });
});

describe('verifyV1 when the ZIP reader fails', () => {
  function failing(zip: ZipArchive, name: string, when: 'read' | 'stream'): ZipArchive {
    const err = new ApkFormatError('ZIP_MALFORMED_ENTRY_DATA', `cannot inflate ${name}`);
    return {
      ...zip,
      readEntry: (entry, max) =>
        entry.name === name && when === 'read' ? Promise.reject(err) : zip.readEntry(entry, max),
      openEntry: (entry) =>
        entry.name === name && when === 'stream'
          ? (async function* (): AsyncGenerator<Buffer> {
              yield Buffer.from('partial');
              await Promise.resolve();
              throw err;
            })()
          : zip.openEntry(entry),
    };
  }

  it('reports an unreadable manifest or signature file with the reader code', async () => {
    for (const name of ['META-INF/MANIFEST.MF', 'META-INF/SIGNER.SF', 'META-INF/SIGNER.EC']) {
      const r = await run(failing(memoryZip(signed), name, 'read'));
      expect(r.verified).toBe(false);
      expect(r.errors.map((e) => e.code)).toEqual(['ZIP_MALFORMED_ENTRY_DATA']);
    }
  });

  it('reports an entry whose data cannot be streamed', async () => {
    const r = await run(failing(memoryZip(signed), 'classes.dex', 'stream'));
    expect(r.errors.map((e) => e.code)).toEqual(['ZIP_MALFORMED_ENTRY_DATA']);
  });

  it('refuses a manifest larger than its cap without reading it', async () => {
    const zip = memoryZip(signed);
    const manifest = zip.entries.find((e) => e.name === 'META-INF/MANIFEST.MF');
    const huge: ZipArchive = {
      ...zip,
      entries: zip.entries.map((e) => (e === manifest ? { ...e, uncompressedSize: 1 << 30 } : e)),
      readEntry: (entry, max) =>
        entry.uncompressedSize > max
          ? Promise.reject(new ApkFormatError('ZIP_ENTRY_TOO_LARGE', 'too large'))
          : zip.readEntry(entry, max),
    };
    expect((await run(huge)).errors.map((e) => e.code)).toEqual(['ZIP_ENTRY_TOO_LARGE']);
  });
});

describe('verifyV1 on adversarial manifests', () => {
  // Its cost is shown by `npm run bench:inspect` (the parser's growth at 10x the sections).
  it('rejects a manifest with 50 000 sections for missing entries, one error each', async () => {
    const sections = Array.from(
      { length: 50_000 },
      (_, i) => `Name: f${i}\r\nSHA-256-Digest: AAAA\r\n\r\n`,
    );
    const files = signJar(FILES, [signer], { editManifest: (t) => t + sections.join('') });
    const r = await run(memoryZip(files));
    expect(r.verified).toBe(false);
    expect(r.errors).toHaveLength(50_000);
    expect(new Set(r.errors.map((e) => e.code))).toEqual(
      new Set(['JAR_SIG_MISSING_ZIP_ENTRY_REFERENCED_IN_MANIFEST']),
    );
  });
});
