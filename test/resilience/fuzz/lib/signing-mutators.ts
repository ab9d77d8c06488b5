/**
 * APK-Signing-Block-aware mutations: the block's size fields and magic, its ID-value pairs
 * (lengths, IDs, duplicates, order), the nested length-prefixed sequences of v2/v3/v3.1 blocks
 * (signers, signed data, signatures, digests, certificates, attributes, lineage) and the
 * certificates' DER. When the signer's private key is known, changed signed data is signed again,
 * so the verifier gets past the signature check into certificates, digests and attributes.
 */
import { sign as cryptoSign, type KeyObject } from 'node:crypto';
import { lengthFields, lp, mutateDer, mutateLengthField, u32 } from './length-prefixed';
import {
  BLOCK_ID,
  parsePairs,
  parseSignedData,
  parseSigners,
  PROOF_OF_ROTATION,
  replaceSigningBlock,
  resign,
  ROTATION_DEV_RELEASE,
  ROTATION_MIN_SDK,
  STRIPPING_PROTECTION,
  writeBlock,
  writeSignedData,
  writeSigners,
  type Pair,
  type SignedDataModel,
  type SignerModel,
} from './signing-block-model';
import { interestingValue, type Rng } from './random';
import type { ZipLayout } from './zip-layout';

const SDKS = [0, 1, 24, 27, 28, 32, 33, 0x7fffffff, 0x80000000, 0xffffffff];

function mutateAttributes(rng: Rng, m: SignedDataModel): string {
  switch (rng.int(6)) {
    case 0: {
      const v = Buffer.alloc(rng.pick([0, 2, 4, 8]));
      if (v.length >= 4) v.writeInt32LE(rng.pick([2, 3, 31, -1, 0x7fffffff]), 0);
      m.attrs.push({ id: STRIPPING_PROTECTION, value: v });
      return 'attr:stripping-protection';
    }
    case 1: {
      const v = Buffer.alloc(rng.pick([0, 3, 4]));
      if (v.length >= 4) v.writeUInt32LE(rng.pick(SDKS) >>> 0, 0);
      m.attrs.push({ id: ROTATION_MIN_SDK, value: v });
      return 'attr:rotation-min-sdk';
    }
    case 2: {
      const lineage = m.attrs.find((a) => a.id === PROOF_OF_ROTATION);
      if (lineage !== undefined) {
        const v = Buffer.from(lineage.value);
        if (rng.chance(0.5) && mutateLengthField(rng, v, lengthFields(v.subarray(4), 4))) {
          lineage.value = v;
          return 'attr:lineage-length';
        }
        lineage.value = Buffer.concat([v.subarray(0, 4), mutateDer(rng, v.subarray(4))]);
        return 'attr:lineage-bytes';
      }
      m.attrs.push({
        id: PROOF_OF_ROTATION,
        value: Buffer.concat([u32(rng.pick([0, 1, 2])), rng.bytes(rng.int(64))]),
      });
      return 'attr:lineage-junk';
    }
    case 3:
      m.attrs.push({ id: ROTATION_DEV_RELEASE, value: Buffer.alloc(rng.int(8)) });
      return 'attr:dev-release';
    case 4:
      m.attrs = [];
      return 'attr:none';
    default:
      m.attrs.push({ id: rng.u32(), value: rng.bytes(rng.int(32)) });
      return 'attr:unknown';
  }
}

/** Changes one signer's signed data; the caller signs it again. */
function mutateSignedData(rng: Rng, s: SignerModel): string {
  let m: SignedDataModel;
  try {
    m = parseSignedData(s.signedData, s.v3);
  } catch {
    return 'signed-data:unparsed';
  }
  let how: string;
  switch (rng.int(9)) {
    case 8: {
      // Very long lists behind the signature (anyone can sign with their own key), ~8 MB each.
      const which = rng.int(3);
      const cert = m.certs[0];
      if (which === 0) m.raw = { attrs: Buffer.alloc(8 * 1_000_000).fill(lp(u32(0x12345678))) };
      else if (which === 1)
        m.raw = { digests: Buffer.alloc(12 * 700_000).fill(lp(u32(0x0103), lp())) };
      else if (cert !== undefined)
        m.raw = {
          certs: Buffer.alloc((cert.length + 4) * Math.floor(8e6 / (cert.length + 4))).fill(
            lp(cert),
          ),
        };
      how = `signed-data:many-${['attributes', 'digests', 'certificates'][which] ?? ''}`;
      break;
    }
    case 0:
    case 1: {
      const i = rng.int(Math.max(1, m.certs.length));
      const cert = m.certs[i];
      if (cert !== undefined) m.certs[i] = mutateDer(rng, cert);
      how = 'signed-data:certificate-der';
      break;
    }
    case 2:
      m.certs = rng.pick([[], [Buffer.alloc(0)], [...m.certs, ...m.certs], [rng.bytes(40)]]);
      how = 'signed-data:certificate-list';
      break;
    case 3:
      m.digests = rng.pick([
        [],
        [...m.digests, ...m.digests],
        [
          Buffer.concat([
            u32(rng.pick([0x0103, 0x0421, 0x0201, rng.u32()])),
            lp(rng.bytes(rng.pick([0, 32, 64]))),
          ]),
        ],
        m.digests.map((d) => Buffer.concat([d.subarray(0, 4), lp(Buffer.alloc(0))])),
      ]);
      how = 'signed-data:digests';
      break;
    case 4:
      m.minSdk = rng.pick(SDKS);
      m.maxSdk = rng.pick(SDKS);
      if (rng.chance(0.5)) {
        s.minSdk = m.minSdk;
        s.maxSdk = m.maxSdk;
      }
      how = 'signed-data:sdk-range';
      break;
    default:
      how = `signed-data:${mutateAttributes(rng, m)}`;
  }
  let data = writeSignedData(m, s.v3);
  if (rng.chance(0.25)) {
    data = Buffer.from(data);
    mutateLengthField(rng, data, lengthFields(data));
    how += '+length';
  }
  s.signedData = data;
  return how;
}

function mutateSignerFields(rng: Rng, s: SignerModel): string {
  switch (rng.int(6)) {
    case 4: {
      // Very many signature records of one algorithm (unknown ones are warnings each).
      // 1,000,000 records make a 12 MB input: rarely, it costs more to build than to run.
      const n = rng.chance(0.1) ? 1_000_000 : rng.pick([1000, 200_000]);
      const alg = rng.pick([0x7777, 0x0103, 0x0201]);
      const record = lp(u32(alg), lp());
      s.rawSignatures = lp(Buffer.alloc(n * record.length).fill(record));
      return `signer:${n}-signature-records`;
    }
    case 0:
      s.publicKey = rng.chance(0.7)
        ? mutateDer(rng, s.publicKey)
        : s.publicKey.subarray(0, rng.int(s.publicKey.length));
      return 'signer:public-key';
    case 1:
      s.signatures = rng.pick([
        [],
        [...s.signatures, ...s.signatures],
        s.signatures.map((g) => ({
          alg: rng.pick([
            0x0101,
            0x0102,
            0x0103,
            0x0104,
            0x0201,
            0x0202,
            0x0301,
            0x0421,
            0x0423,
            0x0425,
            rng.u32(),
          ]),
          sig: g.sig,
        })),
        s.signatures.map((g) => ({
          alg: g.alg,
          sig: g.sig.subarray(0, rng.int(g.sig.length + 1)),
        })),
      ]);
      return 'signer:signatures';
    case 2:
      s.minSdk = rng.pick(SDKS);
      s.maxSdk = rng.pick(SDKS);
      return 'signer:sdk-range';
    default:
      return `signer:${mutateSignedData(rng, s)}`;
  }
}

/** A v2/v3/v3.1 block with one signer changed, re-signed when `keys` has its private key. */
/**
 * A proof-of-rotation lineage of `n` copies of the signer's own certificate, each node validly
 * signed by the previous one with the signer's key (what anyone can make with their own key).
 */
function longLineage(rng: Rng, s: SignerModel, key: KeyObject): string | null {
  let m: SignedDataModel;
  try {
    m = parseSignedData(s.signedData, true);
  } catch {
    return null;
  }
  const cert = m.certs[0];
  if (cert === undefined) return null;
  // Inputs stay near 12 MB at most, so that hashing them stays far below the time bound.
  const n = rng.pick([65, 1000, 10_000]);
  const alg = key.asymmetricKeyType === 'rsa' ? 0x0103 : 0x0201;
  const first = lp(lp(lp(cert), u32(0)), u32(0), u32(alg), lp());
  const signedData = Buffer.concat([lp(cert), u32(alg)]);
  const next = lp(lp(signedData), u32(0), u32(alg), lp(cryptoSign('sha256', signedData, key)));
  const nodes = Buffer.alloc(first.length + (n - 1) * next.length);
  first.copy(nodes);
  nodes.fill(next, first.length);
  m.attrs = m.attrs.filter((a) => a.id !== PROOF_OF_ROTATION);
  m.attrs.push({ id: PROOF_OF_ROTATION, value: Buffer.concat([u32(1), nodes]) });
  s.signedData = writeSignedData(m, true);
  return `signed-data:lineage-of-${n}`;
}

function mutateSchemeValue(rng: Rng, pair: Pair, keys: ReadonlyMap<string, KeyObject>): string {
  const v3 = pair.id !== BLOCK_ID.V2;
  const raw = pair.value;
  let signers: SignerModel[];
  try {
    signers = parseSigners(raw, v3);
  } catch {
    return 'scheme:unparsed';
  }
  let how: string;
  if (signers.length > 0 && rng.chance(0.85)) {
    const s = rng.pick(signers);
    const key = keys.get(s.publicKey.toString('hex'));
    how =
      (v3 && key !== undefined && rng.chance(0.1) ? longLineage(rng, s, key) : null) ??
      mutateSignerFields(rng, s);
    if (key !== undefined && s.rawSignatures === undefined && rng.chance(0.9)) {
      s.signatures = s.signatures.map((g) => ({
        alg: g.alg,
        sig: resign(g.alg, s.signedData, key) ?? g.sig,
      }));
      how += '+resigned';
    }
  } else if (rng.chance(0.3)) {
    // Very many minimal signers (no signed data, signatures or key): each is an error, but
    // everything the verifier does per signer or over all signers is multiplied.
    const n = rng.pick([11, 1000, 65536, 200_000]);
    const one = lp(lp(), ...(v3 ? [u32(28), u32(0x7fffffff)] : []), lp(), lp());
    const many = Buffer.alloc(n * one.length);
    many.fill(one);
    pair.value = lp(many);
    return `scheme:${n}-minimal-signers`;
  } else {
    const first = signers[0];
    signers = rng.pick([
      [],
      [...signers, ...signers],
      first ? Array<SignerModel>(11).fill(first) : [],
    ]);
    how = `scheme:signers-${signers.length}`;
  }
  pair.value = writeSigners(signers);
  return how;
}

function mutatePairs(rng: Rng, pairs: Pair[], keys: ReadonlyMap<string, KeyObject>): string {
  const schemes = pairs.filter(
    (p) => p.id === BLOCK_ID.V2 || p.id === BLOCK_ID.V3 || p.id === BLOCK_ID.V31,
  );
  switch (
    rng.weighted([
      [10, 'scheme'],
      [3, 'nested-length'],
      [2, 'der'],
      [1, 'id'],
      [1, 'duplicate'],
      [1, 'drop'],
      [1, 'add-v31'],
      [1, 'padding'],
    ] as const)
  ) {
    case 'scheme':
      return schemes.length ? mutateSchemeValue(rng, rng.pick(schemes), keys) : 'pairs:none';
    case 'nested-length': {
      const p = rng.pick(schemes.length ? schemes : pairs);
      const v = Buffer.from(p.value);
      mutateLengthField(rng, v, lengthFields(v));
      p.value = v;
      return 'pairs:nested-length';
    }
    case 'der': {
      const p = rng.pick(schemes.length ? schemes : pairs);
      // Any DER SEQUENCE inside (certificates, public keys) gets a hostile change in place.
      const at = p.value.indexOf(Buffer.from([0x30, 0x82]), rng.int(p.value.length));
      if (at < 0 || at + 4 > p.value.length) return 'pairs:none';
      const len = 4 + p.value.readUInt16BE(at + 2);
      const der = p.value.subarray(at, Math.min(p.value.length, at + len));
      const changed = mutateDer(rng, der);
      p.value = Buffer.concat([
        p.value.subarray(0, at),
        changed,
        p.value.subarray(at + der.length),
      ]);
      return 'pairs:der';
    }
    case 'id':
      rng.pick(pairs).id = rng.pick([
        BLOCK_ID.V2,
        BLOCK_ID.V3,
        BLOCK_ID.V31,
        BLOCK_ID.PADDING,
        rng.u32(),
      ]);
      return 'pairs:id';
    case 'duplicate':
      pairs.splice(rng.int(pairs.length + 1), 0, { ...rng.pick(pairs) });
      return 'pairs:duplicate';
    case 'drop':
      pairs.splice(rng.int(pairs.length), 1);
      return 'pairs:drop';
    case 'add-v31': {
      const v3 = pairs.find((p) => p.id === BLOCK_ID.V3);
      if (v3 === undefined) return 'pairs:none';
      pairs.unshift({ id: BLOCK_ID.V31, value: v3.value });
      if (rng.chance(0.5)) pairs.splice(pairs.indexOf(v3), 1);
      return 'pairs:add-v31';
    }
    default:
      pairs.push({ id: BLOCK_ID.PADDING, value: Buffer.alloc(rng.pick([0, 4096, 1024 * 1024])) });
      return 'pairs:padding';
  }
}

/** Size fields, magic and pair headers changed in place, keeping the block where it is. */
function mutateFraming(rng: Rng, block: Buffer): string {
  const sizes = [
    0,
    23,
    24,
    25,
    block.length - 9,
    block.length - 7,
    0x7fffffff - 8,
    0x7fffffff,
    2 ** 32,
    2 ** 53 - 1,
    2 ** 63,
    2 ** 64 - 1,
  ];
  switch (rng.int(5)) {
    case 0:
    case 1: {
      const v = BigInt(rng.pick(sizes)) & 0xffffffffffffffffn;
      const where = rng.int(3);
      if (where !== 1) block.writeBigUInt64LE(v, 0);
      if (where !== 0) block.writeBigUInt64LE(v, block.length - 24);
      return `framing:size-${where}`;
    }
    case 2:
      {
        const at = block.length - 1 - rng.int(16);
        block[at] = (block[at] ?? 0) ^ (1 << rng.int(8));
      }
      return 'framing:magic';
    default: {
      // A pair's uint64 length.
      let pos = 8;
      const heads: number[] = [];
      while (pos + 8 <= block.length - 24) {
        heads.push(pos);
        const len = Number(block.readBigUInt64LE(pos));
        if (len < 4) break;
        pos += 8 + len;
      }
      if (heads.length === 0) return 'framing:none';
      const at = rng.pick(heads);
      const cur = Number(block.readBigUInt64LE(at));
      const choice = rng.pick([
        0,
        3,
        4,
        Math.max(0, cur - 1),
        cur + 1,
        0x7fffffff,
        0x80000000,
        2 ** 32 + cur,
        2 ** 53 - 1,
      ]);
      block.writeBigUInt64LE(BigInt(choice), at);
      if (rng.chance(0.3)) block.writeUInt32LE(interestingValue(rng, 32), at + 8);
      return 'framing:pair-length';
    }
  }
}

/** One signing-block-aware mutation of a signed APK; null when `apk` has no block. */
export function mutateSigning(
  rng: Rng,
  apk: Buffer,
  layout: ZipLayout,
  keys: ReadonlyMap<string, KeyObject>,
): { bytes: Buffer; how: string } | null {
  const sb = layout.signingBlock;
  if (sb === null) return null;
  const original = apk.subarray(sb.offset, sb.offset + sb.size);
  if (rng.chance(0.2)) {
    const block = Buffer.from(original);
    const how = mutateFraming(rng, block);
    return { bytes: replaceSigningBlock(apk, layout, block), how };
  }
  const pairs = parsePairs(original);
  if (pairs.length === 0) return null;
  const how = mutatePairs(rng, pairs, keys);
  return { bytes: replaceSigningBlock(apk, layout, writeBlock(pairs)), how };
}
