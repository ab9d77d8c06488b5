/**
 * The seed inputs: the project's fixture APKs and Google's apksig golden APKs (read in place),
 * their layouts and manifests, and the private keys of the fixture signers (so mutated signed
 * data can be signed again).
 */
import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { inflateRawSync } from 'node:zlib';
import forge from 'node-forge';
import { expectedVerdicts } from '../../../helpers/apk/golden-apks';
import { GOLDEN_DIR, goldenPresent, goldenSkipReason } from '../../../helpers/golden-corpus';
import { zipLayout, type ZipLayout } from './zip-layout';

export const FIXTURE_DIR = path.resolve(__dirname, '../../../fixtures/apks');
const KEY_DIR = path.resolve(__dirname, '../../../fixtures/keys');
const KEY_NAMES = ['fixture', 'second', 'rotation-old', 'rotation-new'];

export interface Seed {
  readonly name: string;
  readonly bytes: Buffer;
  /** Null for inputs that are not well-formed archives (they are still fuzzed as bytes). */
  readonly layout: ZipLayout | null;
  /** Uncompressed AndroidManifest.xml, when there is one. */
  readonly manifest: Buffer | null;
  /** `apksigner verify`'s verdict on the seed (its folder's expected.tsv), when recorded. */
  readonly apksigner?: 'ACCEPT' | 'REJECT';
}

export interface Corpus {
  readonly seeds: readonly Seed[];
  readonly zips: readonly Seed[];
  readonly signed: readonly Seed[];
  readonly manifests: readonly Buffer[];
  /** Private keys by the hex of their SubjectPublicKeyInfo DER. */
  readonly keys: ReadonlyMap<string, KeyObject>;
}

function apkFiles(dir: string): string[] {
  try {
    return readdirSync(dir)
      .filter((f) => f.endsWith('.apk'))
      .map((f) => path.join(dir, f))
      .filter((f) => statSync(f).size <= 2 * 1024 * 1024);
  } catch {
    return [];
  }
}

function manifestOf(bytes: Buffer, layout: ZipLayout | null): Buffer | null {
  if (layout === null) return null;
  const i = layout.records.findIndex((r) => r.name.toString('utf8') === 'AndroidManifest.xml');
  const r = layout.records[i];
  const h = layout.lfhs[i];
  if (r === undefined || h === undefined) return null;
  const raw = bytes.subarray(h.dataOffset, h.dataOffset + r.compressedSize);
  try {
    return r.method === 0 ? Buffer.from(raw) : inflateRawSync(raw);
  } catch {
    return null;
  }
}

function loadKeys(): Map<string, KeyObject> {
  const keys = new Map<string, KeyObject>();
  for (const name of KEY_NAMES) {
    const der = readFileSync(path.join(KEY_DIR, `${name}.p12`)).toString('binary');
    const p12 = forge.pkcs12.pkcs12FromAsn1(forge.asn1.fromDer(der), 'android');
    const bagType = forge.pki.oids.pkcs8ShroudedKeyBag as string;
    const key = p12.getBags({ bagType })[bagType]?.[0]?.key;
    if (key === undefined) continue;
    const privateKey = createPrivateKey(forge.pki.privateKeyToPem(key));
    const spki = createPublicKey(privateKey).export({ format: 'der', type: 'spki' });
    keys.set(spki.toString('hex'), privateKey);
  }
  return keys;
}

export function loadCorpus(opts: { keys: boolean }): Corpus {
  if (!goldenPresent) process.stderr.write(`${goldenSkipReason('the golden fuzz seeds')}\n`);
  const files = [
    ...apkFiles(FIXTURE_DIR),
    ...apkFiles(path.join(FIXTURE_DIR, 'bulk')).slice(0, 2),
    ...apkFiles(GOLDEN_DIR),
  ];
  const verdicts = new Map<string, Map<string, 'ACCEPT' | 'REJECT'>>();
  const verdictOf = (file: string) => {
    const dir = path.dirname(file);
    if (!verdicts.has(dir)) {
      const known = existsSync(path.join(dir, 'expected.tsv'));
      verdicts.set(dir, known ? expectedVerdicts(dir) : new Map<string, 'ACCEPT' | 'REJECT'>());
    }
    return verdicts.get(dir)?.get(path.basename(file));
  };
  const seeds = files.map((file): Seed => {
    const bytes = readFileSync(file);
    const layout = zipLayout(bytes);
    const name = `${file.startsWith(GOLDEN_DIR) ? 'golden' : 'fixtures'}/${path.basename(file)}`;
    const apksigner = verdictOf(file);
    return {
      name,
      bytes,
      layout,
      manifest: manifestOf(bytes, layout),
      ...(apksigner && { apksigner }),
    };
  });
  const distinct = new Map<string, Buffer>();
  for (const s of seeds) if (s.manifest) distinct.set(s.manifest.toString('base64'), s.manifest);
  return {
    seeds,
    zips: seeds.filter((s) => s.layout !== null && s.layout.records.length > 0),
    signed: seeds.filter((s) => s.layout?.signingBlock != null),
    manifests: [...distinct.values()],
    keys: opts.keys ? loadKeys() : new Map(),
  };
}
