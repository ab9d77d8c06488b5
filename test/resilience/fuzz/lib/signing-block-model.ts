/**
 * A model of the APK Signing Block for the fuzzer: its ID-value pairs, the signers of v2/v3/v3.1
 * blocks and their signed data, read from a well-formed seed and written back with every length
 * recomputed; and re-signing of changed signed data with a known private key.
 */
import { constants, sign, type KeyObject } from 'node:crypto';
import { lp, SeqReader, u32 } from './length-prefixed';
import type { ZipLayout } from './zip-layout';

export const BLOCK_ID = {
  V2: 0x7109871a,
  V3: 0xf05368c0,
  V31: 0x1b93ad61,
  PADDING: 0x42726577,
} as const;
export const STRIPPING_PROTECTION = 0xbeeff00d;
export const PROOF_OF_ROTATION = 0x3ba06f8c;
export const ROTATION_MIN_SDK = 0x559f8b02;
export const ROTATION_DEV_RELEASE = 0xc2a6b3ba;
const MAGIC = Buffer.from('APK Sig Block 42', 'latin1');

export interface Pair {
  id: number;
  value: Buffer;
}

export function parsePairs(block: Buffer): Pair[] {
  const pairs: Pair[] = [];
  let pos = 8;
  const end = block.length - 24;
  while (pos + 8 <= end) {
    const len = Number(block.readBigUInt64LE(pos));
    if (len < 4 || pos + 8 + len > end) break;
    pairs.push({ id: block.readUInt32LE(pos + 8), value: block.subarray(pos + 12, pos + 8 + len) });
    pos += 8 + len;
  }
  return pairs;
}

export function writeBlock(pairs: Pair[]): Buffer {
  const body = Buffer.concat(
    pairs.map((p) => {
      const head = Buffer.alloc(12);
      head.writeBigUInt64LE(BigInt(p.value.length + 4), 0);
      head.writeUInt32LE(p.id >>> 0, 8);
      return Buffer.concat([head, p.value]);
    }),
  );
  const size = Buffer.alloc(8);
  size.writeBigUInt64LE(BigInt(body.length + 24), 0);
  return Buffer.concat([size, body, size, MAGIC]);
}

/** `apk` with its signing block replaced (central directory offset in the EOCD moved to match). */
export function replaceSigningBlock(apk: Buffer, layout: ZipLayout, block: Buffer): Buffer {
  const sb = layout.signingBlock;
  const start = sb === null ? layout.cdOffset : sb.offset;
  const out = Buffer.concat([apk.subarray(0, start), block, apk.subarray(layout.cdOffset)]);
  const delta = start + block.length - layout.cdOffset;
  const eocd = layout.eocdOffset + delta;
  out.writeUInt32LE((layout.cdOffset + delta) >>> 0, eocd + 16);
  return out;
}

export interface SignerModel {
  v3: boolean;
  signedData: Buffer;
  minSdk: number;
  maxSdk: number;
  signatures: Array<{ alg: number; sig: Buffer }>;
  /** Written instead of `signatures` when set (very long record lists, built in one go). */
  rawSignatures?: Buffer;
  publicKey: Buffer;
}

export function parseSigners(value: Buffer, v3: boolean): SignerModel[] {
  return new SeqReader(value).seq().map((raw) => {
    const r = new SeqReader(raw);
    const signedData = r.lp();
    const minSdk = v3 ? r.u32() : 0;
    const maxSdk = v3 ? r.u32() : 0;
    const signatures = new SeqReader(lp(r.lp())).seq().map((s) => {
      const sr = new SeqReader(s);
      return { alg: sr.u32(), sig: sr.lp() };
    });
    return { v3, signedData, minSdk, maxSdk, signatures, publicKey: r.lp() };
  });
}

export function writeSigners(signers: SignerModel[]): Buffer {
  return lp(
    ...signers.map((s) =>
      lp(
        lp(s.signedData),
        ...(s.v3 ? [u32(s.minSdk), u32(s.maxSdk)] : []),
        s.rawSignatures ?? lp(Buffer.concat(s.signatures.map((g) => lp(u32(g.alg), lp(g.sig))))),
        lp(s.publicKey),
      ),
    ),
  );
}

export interface SignedDataModel {
  digests: Buffer[];
  certs: Buffer[];
  minSdk: number;
  maxSdk: number;
  attrs: Array<{ id: number; value: Buffer }>;
  /** Written instead of a list when set: its records already length-prefixed and joined. */
  raw?: { digests?: Buffer; certs?: Buffer; attrs?: Buffer };
}

export function parseSignedData(data: Buffer, v3: boolean): SignedDataModel {
  const r = new SeqReader(data);
  const digests = r.seq();
  const certs = r.seq();
  const minSdk = v3 ? r.u32() : 0;
  const maxSdk = v3 ? r.u32() : 0;
  const attrs = r.seq().map((a) => ({ id: a.readUInt32LE(0), value: a.subarray(4) }));
  return { digests, certs, minSdk, maxSdk, attrs };
}

export function writeSignedData(m: SignedDataModel, v3: boolean): Buffer {
  return Buffer.concat([
    lp(m.raw?.digests ?? Buffer.concat(m.digests.map((d) => lp(d)))),
    lp(m.raw?.certs ?? Buffer.concat(m.certs.map((c) => lp(c)))),
    ...(v3 ? [u32(m.minSdk), u32(m.maxSdk)] : []),
    lp(m.raw?.attrs ?? Buffer.concat(m.attrs.map((a) => lp(u32(a.id), a.value)))),
  ]);
}

/** Signs `data` as algorithm `alg` would; null for algorithms the fuzzer does not re-sign. */
export function resign(alg: number, data: Buffer, key: KeyObject): Buffer | null {
  const rsaPss = { key, padding: constants.RSA_PKCS1_PSS_PADDING };
  switch (alg) {
    case 0x0101:
      return sign('sha256', data, { ...rsaPss, saltLength: 32 });
    case 0x0102:
      return sign('sha512', data, { ...rsaPss, saltLength: 64 });
    case 0x0103:
      return sign('sha256', data, key);
    case 0x0104:
      return sign('sha512', data, key);
    default:
      return null;
  }
}
