/**
 * Reading a backup archive: opened and authenticated with the master key (envelope.ts), then its
 * manifest, then each part checked against it as it streams by.
 * `verifyBackup` reads everything and reports every problem; `readParts` hands each verified
 * part's bytes to a consumer (restore) and throws at the first mismatch.
 */
import { access } from 'node:fs/promises';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { createHash } from 'node:crypto';
import type { KeyRing } from '../crypto/keys';
import { openArchive } from './envelope';
import { hashFile } from './hashing';
import { MANIFEST_NAME, parseManifest, sidecarName, type Manifest, type Part } from './manifest';
import { tarEntries } from './tar';
import { coerceError, PayloadInvalid } from '../errors';

export interface VerifyReport {
  readonly ok: boolean;
  readonly path: string;
  readonly sha256: string;
  readonly problems: readonly string[];
  readonly collections: Readonly<Record<string, number>>;
  readonly files: number;
}

type PartConsumer = (part: Part, body: AsyncIterable<Buffer>) => Promise<void>;

async function collect(body: AsyncIterable<Buffer>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of body) chunks.push(c);
  return Buffer.concat(chunks);
}

/** Passes `body` through while hashing it and counting its lines. */
function tapped(body: AsyncIterable<Buffer>) {
  const hash = createHash('sha256');
  const state = { bytes: 0, lines: 0, sha256: '' };
  async function* run(): AsyncGenerator<Buffer> {
    for await (const c of body) {
      hash.update(c);
      state.bytes += c.length;
      for (const b of c) if (b === 0x0a) state.lines += 1;
      yield c;
    }
    state.sha256 = hash.digest('hex');
  }
  return { stream: run(), state };
}

/**
 * Streams the archive, checking every part against the manifest. Problems are pushed to
 * `problems`; with `consume`, each part's bytes are also handed over as they are read.
 */
async function walk(
  file: string,
  keys: KeyRing,
  problems: string[],
  consume?: PartConsumer,
): Promise<Manifest | null> {
  let manifest: Manifest | null = null;
  const seen = new Set<string>();
  const entries = tarEntries(await openArchive(file, keys));
  for await (const entry of entries) {
    if (manifest === null) {
      if (entry.name !== MANIFEST_NAME) {
        throw new PayloadInvalid('backup', 'the first entry is not manifest.json');
      }
      manifest = parseManifest((await collect(entry.body)).toString('utf8'));
      continue;
    }
    const part = manifest.parts.find((p) => p.path === entry.name);
    if (!part) {
      problems.push(`unexpected entry ${entry.name}`);
      continue;
    }
    seen.add(part.path);
    const { stream, state } = tapped(entry.body);
    if (consume) await consume(part, stream);
    for await (const _ of stream) void _;
    const what = part.kind === 'collection' ? `collection ${part.collection}` : part.path;
    if (state.bytes !== part.bytes || state.sha256 !== part.sha256) {
      problems.push(`${what}: checksum mismatch`);
    } else if (part.kind === 'collection' && state.lines !== part.count) {
      problems.push(`${what}: ${state.lines} documents, manifest says ${part.count}`);
    }
    if (consume && problems.length > 0) throw new PayloadInvalid('backup', problems.join('; '));
  }
  if (manifest === null) throw new PayloadInvalid('backup', 'empty archive');
  for (const p of manifest.parts) if (!seen.has(p.path)) problems.push(`missing part ${p.path}`);
  return manifest;
}

export async function verifyBackup(file: string, keys: KeyRing): Promise<VerifyReport> {
  const problems: string[] = [];
  const { sha256 } = await hashFile(file);
  const sidecar = sidecarName(file);
  const hasSidecar = await access(sidecar).then(
    () => true,
    () => false,
  );
  if (hasSidecar) {
    const expected = (await readFile(sidecar, 'utf8')).split(/\s+/)[0];
    if (expected !== sha256)
      problems.push(`archive SHA-256 differs from ${path.basename(sidecar)}`);
  }
  let manifest: Manifest | null = null;
  try {
    manifest = await walk(file, keys, problems);
  } catch (err) {
    problems.push(`unreadable archive: ${coerceError(err).message}`);
  }
  return {
    ok: problems.length === 0,
    path: file,
    sha256,
    problems,
    collections: manifest?.collections ?? {},
    files: manifest?.files ?? 0,
  };
}

/** Hands every part to `consume`, verified on the fly; throws at the first problem. */
export async function readParts(
  file: string,
  keys: KeyRing,
  consume: PartConsumer,
): Promise<Manifest> {
  const problems: string[] = [];
  const manifest = await walk(file, keys, problems, consume);
  if (!manifest || problems.length > 0) throw new PayloadInvalid('backup', problems.join('; '));
  return manifest;
}
