/**
 * Patch generation over the real stack (workers, Redis, FerretDB, GridFS) with APKs built by aapt
 * and signed by apksigner: making v2 current makes the patch from the v1 the fleet runs, proven
 * and stored encrypted; a patch that fails its proof or is too large is never published, and a
 * crashed try's leftover blob is swept. A pair whose large deflated asset changed a little also
 * gets an ARDELTA2 patch, smaller than its ARDELTA1, that the TS applier turns back into v2; the
 * unique index of the documents before ARDELTA2 is replaced at start-up.
 */
import { createHash } from 'node:crypto';
import { ObjectId } from 'mongodb';
import { deltaCollections, DELTA_BUCKET } from '../../../shared/delta/collections';
import { generateDelta, type GenerateDeltaDeps } from '../../../shared/delta/generate-delta';
import { storeSealed } from '../../../shared/delta/stored-blob';
import { buildPatch } from '../../../shared/delta/build-patch';
import { catalogCollections } from '../../../shared/catalog/collections';
import { newAccount } from '../../helpers/accounts';
import { registerDevices } from '../../helpers/devices';
import { eventually } from '../../helpers/eventually';
import { startStack, type TestStack } from '../../helpers/stack';
import { fixture, uploadFixture } from '../../helpers/uploads';
import { compressedApk } from '../../helpers/apk/compressed-apk';
import { storedApk } from '../../helpers/stored-apk';
import { openSealed, streamSealed } from '../../../shared/delta/stored-blob';
import { ensureDeltaIndexes } from '../../../shared/delta/collections';
import { inflatePatch } from '../../../device-client/node/inflater';
import { applyInMemory2, words } from '../../helpers/delta';
import { generateDeltaDeps } from '../../helpers/delta-deps';
import type { ApkDoc } from '../../../shared/catalog/types';

let stack: TestStack;
let account: { apiKey: string; id: string };
const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex');
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

beforeAll(async () => {
  stack = await startStack();
  account = await newAccount(stack);
  await uploadFixture(stack, account.apiKey, 'version-1.apk');
  const v1 = await fixture('version-1.apk');
  await registerDevices(
    {
      baseUrl: stack.urls.web,
      ca: stack.ca,
      apiKey: account.apiKey,
      package: 'dev.apkrelay.sample',
    },
    ['till-1', 'till-2'],
    md5(v1),
  );
  await uploadFixture(stack, account.apiKey, 'version-2.apk');
});
afterAll(() => stack.close());

const deltas = () => deltaCollections(stack.mongo.db).deltas;
const deltaFiles = () => stack.mongo.db.collection(`${DELTA_BUCKET}.files`);

async function apkOf(name: string) {
  const apk = await catalogCollections(stack.mongo.db).apks.findOne({
    accountId: account.id,
    md5: md5(await fixture(name)),
  });
  if (!apk) throw new Error(`${name} not stored`);
  return apk;
}

const deps = (overrides: Partial<GenerateDeltaDeps> = {}) => generateDeltaDeps(stack, overrides);

test('making v2 current publishes a proven patch from the v1 the fleet runs', async () => {
  const [v1, v2] = [await fixture('version-1.apk'), await fixture('version-2.apk')];
  const doc = await eventually('the v1 → v2 patch', () =>
    deltas().findOne({ accountId: account.id, fromMd5: md5(v1), toSha256: sha256(v2), format: 1 }),
  );
  expect(doc.status).toBe('ready');
  expect(doc.package).toBe('dev.apkrelay.sample');
  expect(doc.fullSize).toBe(v2.length);
  expect(doc.size).toBeGreaterThan(0);
  expect(doc.size).toBeLessThanOrEqual(0.6 * v2.length);
  // stored encrypted: the blob is not the patch's bytes
  const file = await deltaFiles().findOne({ _id: new ObjectId(doc.blobId!) });
  expect(file?.['metadata']).toEqual({
    pair: `${account.id}/dev.apkrelay.sample/${md5(v1)}/${sha256(v2)}`,
  });
  expect(file?.['length']).toBeGreaterThan(doc.size);
});

test('a patch that fails its proof is never published, and its blob is deleted', async () => {
  const [from, to] = [await apkOf('version-2.apk'), await apkOf('version-1.apk')];
  const broken = (old: Uint8Array, target: Uint8Array) => {
    const flipped = Buffer.from(target);
    flipped[100] = flipped[100]! ^ 1;
    return buildPatch(old, flipped);
  };
  expect(await generateDelta(await deps({ build: broken }), from, to)).toBe('unproven');
  const doc = await deltas().findOne({ fromMd5: from.md5, toSha256: to.sha256, format: 1 });
  expect(doc?.status).toBe('unproven');
  expect(doc?.blobId).toBeNull();
  expect(doc?.problem).toBe('the patch gives another MD5');
  const pair = `${account.id}/dev.apkrelay.sample/${from.md5}/${to.sha256}`;
  const format1 = { 'metadata.pair': pair, 'metadata.format': { $exists: false } };
  expect(await deltaFiles().countDocuments(format1)).toBe(0);
});

test('a patch larger than DELTA_MAX_SHARE of the APK is not kept', async () => {
  await uploadFixture(stack, account.apiKey, 'version-3.apk', { current: false });
  const [from, to] = [await apkOf('version-1.apk'), await apkOf('version-3.apk')];
  const settings = { maxSources: 3, maxShare: 0.001 };
  expect(await generateDelta(await deps({ settings }), from, to)).toBe('too-large');
  const doc = await deltas().findOne({ fromMd5: from.md5, toSha256: to.sha256, format: 1 });
  expect(doc?.status).toBe('too-large');
  expect(doc?.blobId).toBeNull();
});

test('a blob left by a crashed try is swept before the pair is generated again', async () => {
  const [from, to] = [await apkOf('version-3.apk'), await apkOf('version-2.apk')];
  const pair = `${account.id}/dev.apkrelay.sample/${from.md5}/${to.sha256}`;
  const d = await deps();
  const left = await storeSealed(d.deltaBlobs, d.keys, Buffer.from('half a patch'), { pair });
  expect(await generateDelta(d, from, to)).toBe('ready');
  const doc = await deltas().findOne({ fromMd5: from.md5, toSha256: to.sha256, format: 1 });
  expect(doc?.blobId).not.toBe(left.blobId);
  const files = await deltaFiles()
    .find({ 'metadata.pair': pair, 'metadata.format': { $exists: false } })
    .toArray();
  expect(files.map((f) => String(f._id))).toEqual([doc?.blobId]);
});

async function asStored(apk: Buffer, appId: ObjectId): Promise<ApkDoc> {
  const keys = (await deps()).keys;
  return {
    ...(await storedApk(stack.mongo.db, keys, apk)),
    accountId: account.id,
    package: 'dev.apkrelay.deltatwo',
    appId,
    md5: md5(apk),
    sha256: sha256(apk),
  };
}

test('a changed deflated asset: a proven ARDELTA2, smaller than ARDELTA1, gives v2 back', async () => {
  const data = words(120_000);
  const changed = Buffer.concat([
    data.subarray(0, 400_000),
    Buffer.from('A CHANGE'),
    data.subarray(400_000),
  ]);
  const v1 = await compressedApk('dev.apkrelay.deltatwo', 1, { 'data.txt': data });
  const v2 = await compressedApk('dev.apkrelay.deltatwo', 2, { 'data.txt': changed });
  const appId = new ObjectId();
  const [from, to] = [await asStored(v1, appId), await asStored(v2, appId)];
  const d = await deps();
  expect(await generateDelta(d, from, to)).toBe('ready');
  const pair = { accountId: account.id, fromMd5: md5(v1), toSha256: sha256(v2) };
  const whole = await deltas().findOne({ ...pair, format: 1 });
  const byFile = await deltas().findOne({ ...pair, format: 2 });
  expect(whole?.status).toBe('ready');
  expect(byFile?.status).toBe('ready');
  expect(byFile!.size).toBeLessThan(whole!.size);
  const file = await deltaFiles().findOne({ _id: new ObjectId(byFile!.blobId!) });
  expect(file?.['metadata']).toEqual({
    pair: `${account.id}/dev.apkrelay.deltatwo/${md5(v1)}/${sha256(v2)}`,
    format: 2,
  });
  // the stored ciphertext, decrypted and applied by the device's applier, is v2 exactly
  const source = await openSealed(
    d.deltaBlobs,
    d.keys,
    byFile as Required<typeof byFile> & { blobId: string; wrappedKey: string; noncePrefix: string },
  );
  try {
    const applied = await applyInMemory2(inflatePatch(streamSealed(source)), v1);
    expect(applied.sha256).toBe(sha256(v2));
    expect(applied.bytes.equals(v2)).toBe(true);
  } finally {
    await source.close();
  }
  // both formats tried: generating again changes nothing
  expect(await generateDelta(d, from, to)).toBe('raced');
  expect(await deltas().countDocuments(pair)).toBe(2);
});

test('files that are not plain ZIPs get ARDELTA1 only (a `none` ARDELTA2 document)', async () => {
  const appId = new ObjectId();
  const text = words(2_000);
  const from = await asStored(text, appId);
  const to = await asStored(Buffer.concat([text, Buffer.from(' and more')]), appId);
  expect(await generateDelta(await deps(), from, to)).toBe('ready');
  const doc = await deltas().findOne({ fromMd5: from.md5, toSha256: to.sha256, format: 2 });
  expect(doc?.status).toBe('none');
  expect(doc?.blobId).toBeNull();
});

test('the unique index of before ARDELTA2 is replaced and old documents become format 1', async () => {
  const db = stack.mongo.client.db(`${stack.mongo.db.databaseName}_index`);
  const old = db.collection('deltas');
  try {
    await old.insertOne({ accountId: 'a', package: 'p', fromMd5: 'f', toSha256: 't' });
    await old.createIndex(
      { accountId: 1, package: 1, fromMd5: 1, toSha256: 1 },
      { unique: true, name: 'account_package_from_to' },
    );
    await ensureDeltaIndexes(db);
    await ensureDeltaIndexes(db);
    const indexes = (await old.listIndexes().toArray()) as Array<{ name: string }>;
    const names = indexes.map((i) => i.name).sort();
    expect(names).toEqual(['_id_', 'account_package_from_to_format']);
    expect(await old.findOne({ fromMd5: 'f' })).toMatchObject({ format: 1 });
    const second = { accountId: 'a', package: 'p', fromMd5: 'f', toSha256: 't', format: 2 };
    await old.insertOne({ ...second });
    await expect(old.insertOne({ ...second })).rejects.toThrow(/duplicate key/i);
  } finally {
    await db.dropDatabase();
  }
});
