/**
 * Backups are encrypted and authenticated as a whole (issue 24, finding 5): an archive shows no
 * document in clear, and a byte flipped anywhere (header, first, middle or last byte), or the
 * archive cut short, refuses to restore with a clear error even when the attacker rewrote the
 * unkeyed `.sha256` sidecar to match; so does a well-formed archive built without the key (what
 * anyone who can write the backup directory could do with unkeyed checksums); nothing is written. An intact archive restores, and
 * another MASTER_KEY cannot open it.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { GridFSBucket } from 'mongodb';
import { createBackup } from '../../../shared/backup/create-backup';
import { FORMAT, MANIFEST_NAME } from '../../../shared/backup/manifest';
import { restoreBackup } from '../../../shared/backup/restore-backup';
import { tarStream } from '../../../shared/backup/tar';
import { createKeyRing } from '../../../shared/crypto/keys';
import { connectMongo, type Mongo } from '../../../shared/storage/mongo';
import { isolation, serviceUrls, testLogger, useIsolatedMongo } from '../../helpers/services';

const source = useIsolatedMongo();
const keys = createKeyRing(randomBytes(32));
const MARKER = 'secret-marker-a1b2c3@example.com';
let dir: string;
let archive: string;
let target: Mongo;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'apkrelay-backup-auth-'));
  const db = source.mongo.db;
  await db.collection('accounts').insertOne({ email: MARKER, sessions: ['web-session-token'] });
  const bucket = new GridFSBucket(db, { bucketName: 'apks' });
  await new Promise<void>((resolve, reject) =>
    bucket
      .openUploadStream('a.apk')
      .on('finish', () => resolve())
      .on('error', reject)
      .end(Buffer.concat([Buffer.from(MARKER), randomBytes(200_000)])),
  );
  // Options built aside: the same call compiles whether or not createBackup takes keys yet.
  const options = { db, dir, at: new Date('2026-11-25T02:30:00Z'), log: testLogger(), keys };
  archive = (await createBackup(options)).path;
  target = await connectMongo(serviceUrls().mongoUrl, isolation().database);
});

afterAll(async () => {
  await target?.db.dropDatabase();
  await target?.close();
  await rm(dir, { recursive: true, force: true });
});

const restore = (file: string, ring = keys) => {
  const options = { force: true, keys: ring };
  return restoreBackup(target.db, file, options);
};

async function tampered(name: string, bytes: Buffer): Promise<string> {
  const file = path.join(dir, name);
  await writeFile(file, bytes);
  // The attacker recomputes the unkeyed checksum: it must not be what makes restore refuse.
  const sha = createHash('sha256').update(bytes).digest('hex');
  await writeFile(`${file}.sha256`, `${sha}  ${name}\n`);
  return file;
}

test('the archive shows no document in clear, raw or gunzipped', async () => {
  const bytes = await readFile(archive);
  expect(bytes.includes(MARKER)).toBe(false);
  let inflated: Buffer | undefined;
  try {
    inflated = gunzipSync(bytes);
  } catch {
    inflated = undefined;
  }
  expect(inflated?.includes(MARKER) ?? false).toBe(false);
});

test.each([
  ['the first byte', () => 0],
  ['a header byte', (n: number) => Math.min(20, n - 1)],
  ['a byte in the middle', (n: number) => Math.floor(n / 2)],
  ['the last byte', (n: number) => n - 1],
])('a flipped byte (%s) refuses to restore, and nothing is written', async (_what, where) => {
  const bytes = Buffer.from(await readFile(archive));
  const at = where(bytes.length);
  bytes[at] = bytes[at]! ^ 0x01;
  const file = await tampered(`flipped-${at}.tar.gz`, bytes);
  await expect(restore(file)).rejects.toThrow(/authentic|tampered/i);
  expect(await target.db.collection('accounts').countDocuments()).toBe(0);
});

test('an archive forged without the key (valid tar, manifest and checksums) refuses to restore', async () => {
  const work = await mkdtemp(path.join(dir, 'forge-'));
  const body = `${JSON.stringify({ email: 'attacker@example.com' })}\n`;
  const part = {
    kind: 'collection' as const,
    path: 'collections/0.ejson',
    collection: 'accounts',
    count: 1,
    bytes: Buffer.byteLength(body),
    sha256: createHash('sha256').update(body).digest('hex'),
  };
  const manifest = {
    format: FORMAT,
    version: 1,
    createdAt: new Date().toISOString(),
    database: 'apkrelay',
    collections: { accounts: 1 },
    files: 0,
    parts: [part],
  };
  const inputs = [
    { name: MANIFEST_NAME, text: JSON.stringify(manifest) },
    { name: part.path, text: body },
  ];
  const tarInputs = [];
  for (const [i, input] of inputs.entries()) {
    const file = path.join(work, String(i));
    await writeFile(file, input.text);
    tarInputs.push({ name: input.name, file, size: Buffer.byteLength(input.text) });
  }
  const chunks: Buffer[] = [];
  for await (const chunk of tarStream(tarInputs, new Date())) chunks.push(chunk);
  const file = await tampered('forged.tar.gz', gzipSync(Buffer.concat(chunks)));
  await expect(restore(file)).rejects.toThrow(/authentic|tampered/i);
  expect(await target.db.collection('accounts').countDocuments()).toBe(0);
});

test('an archive cut short refuses to restore', async () => {
  const bytes = await readFile(archive);
  const file = await tampered('short.tar.gz', bytes.subarray(0, bytes.length - 100));
  await expect(restore(file)).rejects.toThrow(/authentic|tampered/i);
  expect(await target.db.collection('accounts').countDocuments()).toBe(0);
});

test('another MASTER_KEY cannot open it; the right one restores everything', async () => {
  await expect(restore(archive, createKeyRing(randomBytes(32)))).rejects.toThrow(
    /authentic|tampered/i,
  );
  await restore(archive);
  expect(await target.db.collection('accounts').findOne({})).toMatchObject({ email: MARKER });
  expect(await target.db.collection('apks.files').countDocuments()).toBe(1);
});
