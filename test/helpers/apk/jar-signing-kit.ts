/**
 * Test kit: an in-memory ZipArchive and a small JAR signer (self-signed certificates, MANIFEST.MF,
 * .SF, PKCS #7 SignedData built by hand with node:crypto keys), so tests can produce exactly the
 * malformed or unusual signatures a case needs. Independent of the code under test.
 */
import { createHash, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { asn1 } from 'node-forge';
import { ApkFormatError } from '../../../shared/apk/issues';
import { bufferSource } from '../../../shared/apk/sources';
import type { ZipArchive, ZipEntry } from '../../../shared/apk/zip/types';

export type Files = Array<[name: string, data: Buffer]>;

/** A ZipArchive over in-memory entries; data is streamed in small chunks. */
export function memoryZip(files: Files): ZipArchive {
  const data = new Map<ZipEntry, Buffer>();
  const entries: ZipEntry[] = files.map(([name, bytes], i) => {
    const entry: ZipEntry = {
      nameBytes: Buffer.from(name, 'utf8'),
      name,
      method: 0,
      generalPurposeFlags: 0,
      crc32: 0,
      compressedSize: bytes.length,
      uncompressedSize: bytes.length,
      localHeaderOffset: i * 1000,
    };
    data.set(entry, bytes);
    return entry;
  });
  async function* openEntry(entry: ZipEntry): AsyncGenerator<Buffer> {
    const bytes = data.get(entry) ?? Buffer.alloc(0);
    for (let i = 0; i < bytes.length; i += 7) {
      await Promise.resolve();
      yield bytes.subarray(i, i + 7);
    }
  }
  return {
    source: bufferSource(Buffer.alloc(0)),
    sections: {
      cdOffset: 0,
      cdSize: 0,
      cdRecordCount: entries.length,
      eocdOffset: 0,
      eocd: Buffer.alloc(22),
    },
    entries,
    openEntry,
    readEntry(entry, maxBytes) {
      const bytes = data.get(entry) ?? Buffer.alloc(0);
      if (bytes.length > maxBytes) {
        return Promise.reject(new ApkFormatError('ZIP_ENTRY_TOO_LARGE', `${entry.name} too large`));
      }
      return Promise.resolve(bytes);
    },
  };
}

// --- DER building -------------------------------------------------------------------------------

function tlv(tag: number, ...parts: Buffer[]): Buffer {
  const body = Buffer.concat(parts);
  const n = body.length;
  const len =
    n < 0x80
      ? Buffer.from([n])
      : n < 0x100
        ? Buffer.from([0x81, n])
        : Buffer.from([0x82, n >> 8, n & 0xff]);
  if (n > 0xffff) throw new Error('too long for this kit');
  return Buffer.concat([Buffer.from([tag]), len, body]);
}
export const seq = (...parts: Buffer[]): Buffer => tlv(0x30, ...parts);
export const set = (...parts: Buffer[]): Buffer => tlv(0x31, ...parts);
export const ctx = (n: number, ...parts: Buffer[]): Buffer => tlv(0xa0 + n, ...parts);
export const octets = (b: Buffer): Buffer => tlv(0x04, b);
export const oid = (dotted: string): Buffer =>
  tlv(0x06, Buffer.from(asn1.oidToDer(dotted).getBytes(), 'binary'));
const int = (n: number): Buffer => tlv(0x02, Buffer.from([n]));
const utf8 = (s: string): Buffer => tlv(0x0c, Buffer.from(s, 'utf8'));
const time = (s: string): Buffer => tlv(0x17, Buffer.from(s, 'latin1'));
const bits = (b: Buffer): Buffer => tlv(0x03, Buffer.from([0]), b);
const NULL = Buffer.from([0x05, 0x00]);
const boolTrue = Buffer.from([0x01, 0x01, 0xff]);

export const OIDS = {
  sha256: '2.16.840.1.101.3.4.2.1',
  sha1: '1.3.14.3.2.26',
  rsa: '1.2.840.113549.1.1.1',
  sha256WithRsa: '1.2.840.113549.1.1.11',
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  ecPublicKey: '1.2.840.10045.2.1',
  dsa: '1.2.840.10040.4.1',
  data: '1.2.840.113549.1.7.1',
  signedData: '1.2.840.113549.1.7.2',
  contentType: '1.2.840.113549.1.9.3',
  messageDigest: '1.2.840.113549.1.9.4',
};

export interface TestSigner {
  readonly kind: 'rsa' | 'ec' | 'dsa';
  readonly privateKey: KeyObject;
  readonly certificate: Buffer;
  readonly issuer: Buffer;
  readonly serial: number;
}

export interface CertOptions {
  /** Extensions to add, as encoded Extension SEQUENCEs. */
  extensions?: Buffer[];
  serial?: number;
}

export function keyUsageExtension(bitsByte: number, critical = true): Buffer {
  const value = tlv(0x03, Buffer.from([0]), Buffer.from([bitsByte]));
  return seq(oid('2.5.29.15'), ...(critical ? [boolTrue] : []), octets(value));
}

export function unknownCriticalExtension(): Buffer {
  return seq(oid('1.2.3.4.5.6'), boolTrue, octets(NULL));
}

export function makeSigner(kind: 'rsa' | 'ec' | 'dsa', opts: CertOptions = {}): TestSigner {
  const { publicKey, privateKey } =
    kind === 'rsa'
      ? generateKeyPairSync('rsa', { modulusLength: 2048 })
      : kind === 'ec'
        ? generateKeyPairSync('ec', { namedCurve: 'P-256' })
        : generateKeyPairSync('dsa', { modulusLength: 2048, divisorLength: 256 });
  const serial = opts.serial ?? 7;
  const name = seq(set(seq(oid('2.5.4.3'), utf8(`test ${kind}`))));
  const certSigAlg =
    kind === 'rsa'
      ? seq(oid(OIDS.sha256WithRsa), NULL)
      : seq(oid(kind === 'ec' ? OIDS.ecdsaWithSha256 : '2.16.840.1.101.3.4.3.2'));
  const exts =
    opts.extensions && opts.extensions.length > 0 ? [ctx(3, seq(...opts.extensions))] : [];
  const tbs = seq(
    ctx(0, int(2)),
    int(serial),
    certSigAlg,
    name,
    seq(time('200101000000Z'), time('400101000000Z')),
    name,
    publicKey.export({ type: 'spki', format: 'der' }),
    ...exts,
  );
  const signature = sign(
    'sha256',
    tbs,
    kind === 'rsa' ? privateKey : { key: privateKey, dsaEncoding: 'der' },
  );
  return {
    kind,
    privateKey,
    certificate: seq(tbs, certSigAlg, bits(signature)),
    issuer: name,
    serial,
  };
}

export interface BlockOptions {
  /** Signed attributes to include (encoded Attribute SEQUENCEs), or 'standard' for content-type + digest. */
  signedAttrs?: Buffer[] | 'standard';
  /** Identify the signer by subjectKeyIdentifier instead of issuer and serial. */
  bySubjectKeyId?: boolean;
  certificates?: Buffer[];
  digestOid?: string;
  sigOid?: string;
}

/** A PKCS #7 SignedData over `content` (detached), signed with SHA-256. */
export function signatureBlock(
  content: Buffer,
  signer: TestSigner,
  opts: BlockOptions = {},
): Buffer {
  const digest = createHash('sha256').update(content).digest();
  const attrs =
    opts.signedAttrs === 'standard'
      ? [
          seq(oid(OIDS.contentType), set(oid(OIDS.data))),
          seq(oid(OIDS.messageDigest), set(octets(digest))),
        ]
      : opts.signedAttrs;
  const signedAttrsSet = attrs ? set(...attrs) : null;
  const toSign = signedAttrsSet ?? content;
  const keyArg =
    signer.kind === 'rsa'
      ? signer.privateKey
      : { key: signer.privateKey, dsaEncoding: 'der' as const };
  const signature = sign('sha256', toSign, keyArg);
  const defaultSigOid = { rsa: OIDS.rsa, ec: OIDS.ecPublicKey, dsa: OIDS.dsa }[signer.kind];
  const sid = opts.bySubjectKeyId
    ? ctx(0, Buffer.from([0x04, 0x01, 0x01]))
    : seq(signer.issuer, int(signer.serial));
  const signerInfo = seq(
    int(1),
    sid,
    seq(oid(opts.digestOid ?? OIDS.sha256)),
    ...(signedAttrsSet ? [Buffer.concat([Buffer.from([0xa0]), signedAttrsSet.subarray(1)])] : []),
    seq(oid(opts.sigOid ?? defaultSigOid)),
    octets(signature),
  );
  const certs = opts.certificates ?? [signer.certificate];
  const signedData = seq(
    int(1),
    set(seq(oid(OIDS.sha256))),
    seq(oid(OIDS.data)),
    ctx(0, ...certs),
    set(signerInfo),
  );
  return seq(oid(OIDS.signedData), ctx(0, signedData));
}

const b64 = (data: Buffer): string => createHash('sha256').update(data).digest('base64');

export interface JarOptions {
  signerName?: string;
  /** Rewrites MANIFEST.MF text before the .SF is computed. */
  editManifest?: (text: string) => string;
  /** Rewrites .SF text before it is signed. */
  editSigFile?: (text: string) => string;
  block?: BlockOptions;
  /** Extra lines for the .SF main section (e.g. X-Android-APK-Signed). */
  sfMainLines?: string[];
}

export function manifestFor(files: Files): string {
  let text = 'Manifest-Version: 1.0\r\nCreated-By: kit\r\n\r\n';
  for (const [name, data] of files) text += `Name: ${name}\r\nSHA-256-Digest: ${b64(data)}\r\n\r\n`;
  return text;
}

/** Signature file text for a manifest: whole-manifest, main-section and per-section digests. */
export function sigFileFor(manifest: string, mainLines: string[] = []): string {
  const sections = manifest.split(/(?<=\r\n\r\n)/);
  const main = sections[0] ?? '';
  let text =
    `Signature-Version: 1.0\r\nCreated-By: kit\r\n${mainLines.map((l) => `${l}\r\n`).join('')}` +
    `SHA-256-Digest-Manifest: ${b64(Buffer.from(manifest))}\r\n` +
    `SHA-256-Digest-Manifest-Main-Attributes: ${b64(Buffer.from(main))}\r\n\r\n`;
  for (const section of sections.slice(1)) {
    const name = /^Name: (.*)\r\n/.exec(section)?.[1];
    if (name !== undefined)
      text += `Name: ${name}\r\nSHA-256-Digest: ${b64(Buffer.from(section))}\r\n\r\n`;
  }
  return text;
}

/** Signs `files` (entries outside META-INF) and returns them with the JAR signature added. */
export function signJar(files: Files, signers: TestSigner[], opts: JarOptions = {}): Files {
  const manifest = (opts.editManifest ?? ((t: string): string => t))(manifestFor(files));
  const out: Files = [...files, ['META-INF/MANIFEST.MF', Buffer.from(manifest)]];
  signers.forEach((signer, i) => {
    const base = `META-INF/${opts.signerName ?? 'SIGNER'}${i === 0 ? '' : i}`;
    const sf = Buffer.from(
      (opts.editSigFile ?? ((t: string): string => t))(sigFileFor(manifest, opts.sfMainLines)),
    );
    const ext = { rsa: 'RSA', ec: 'EC', dsa: 'DSA' }[signer.kind];
    out.push([`${base}.SF`, sf], [`${base}.${ext}`, signatureBlock(sf, signer, opts.block)]);
  });
  return out;
}
