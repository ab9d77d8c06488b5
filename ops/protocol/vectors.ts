/**
 * Writes the protocol layer's shared test vectors (device-client/protocol/vectors/
 * protocol-vectors.json) from the layer itself and the server's signer: canonical JSON (input
 * text → exact output), signed notices (a fixed key → the exact text signed and a signature the
 * public key verifies) and PushLink lines (input → exact line, and read back). The TS tests check
 * the file against hand-written literals and against this generator's output (stale vectors
 * fail); the Java core's JUnit tests read the same file and must produce and accept the same
 * bytes. Ed25519 is deterministic, so running it again rewrites the same file.
 *
 * It also writes the delta patch vectors (delta-vectors.ts, delta2-vectors.ts).
 *
 * Usage: npm run protocol:vectors
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { canonicalJson } from '../../device-client/protocol/canonical-json';
import {
  apkLine,
  readDeviceLine,
  readServerLine,
  subscribeLine,
  textLine,
  type SubscribeFields,
} from '../../device-client/protocol/pushlink-lines';
import { signedBytes } from '../../device-client/protocol/signed-notice';
import { DELTA_VECTORS_FILE, deltaVectorsText } from './delta-vectors';
import { DELTA2_VECTORS_FILE, delta2VectorsText } from './delta2-vectors';
import { publicKeyInfo, pushKeysFromSeed, signEvent } from '../../shared/devices/push-signing';

/** The file, from the repository's root. */
export const VECTORS_FILE = 'device-client/protocol/vectors/protocol-vectors.json';

/** RFC 8032 section 7.1, TEST 1: a published Ed25519 seed (its public key is known by hand). */
export const VECTOR_SEED_HEX = '9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60';

/** [name, JSON text]: what canonical JSON must do with each. */
const CANONICAL_INPUTS: ReadonlyArray<readonly [string, string]> = [
  ['keys sorted at every level', '{"b":1,"a":{"d":[2,{"z":1,"y":0}],"c":"x"}}'],
  ['keys sorted by UTF-16 code unit, not locale', '{"b":0,"B":1,"é":2,"e":3,"_":4,"😀":5,"":6}'],
  ['array order kept', '[3,1,2,[{"b":null,"a":true}]]'],
  ['numbers as JavaScript writes them', '[1.5,-0,1e21,1e-7,100,0.1,-2.5e-8,123456789012]'],
  [
    'escapes as JSON.stringify',
    '{"s":"quote\\" backslash\\\\ tab\\t nl\\n ctl\\u0001 del\\u007f"}',
  ],
  ['non-ASCII and U+2028 written as is', '{"s":"é – ü \\u2028 🚀"}'],
  ['scalars', '[null,true,false,"",0]'],
  ['empty object and array', '{"o":{},"a":[]}'],
];

function notices() {
  const base = {
    v: 2 as const,
    account: '6745a1b2c3d4e5f6000000aa',
    package: 'dev.apkrelay.demo',
    apkId: '6745a1b2c3d4e5f601234567',
    issuedAt: '2026-11-25T16:59:30.000Z',
  };
  return [
    {
      ...base,
      type: 'version' as const,
      device: 'device-x',
      md5: '0123456789abcdef0123456789abcdef',
      sha256: '0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef',
      versionCode: 2,
      versionName: 'Zwei – "ü" / 🚀\n\u0001',
      size: 1048576,
      url: 'https://web.example/download?package=dev.apkrelay.demo',
    },
    { ...base, type: 'giveup' as const, device: '*', md5: null },
  ];
}

function signedNoticeVectors() {
  const keys = pushKeysFromSeed(Buffer.from(VECTOR_SEED_HEX, 'hex'));
  return {
    seed: VECTOR_SEED_HEX,
    publicKey: publicKeyInfo(keys).publicKey,
    cases: notices().map((body) => {
      const signed = signEvent(keys, body);
      return {
        name: `${body.type} notice`,
        notice: signed,
        signedText: new TextDecoder().decode(signedBytes(signed)),
        signature: signed.signature,
      };
    }),
  };
}

const SDK_560: SubscribeFields = {
  deviceId: 'device-x',
  apiKey: 'k'.repeat(32),
  package: 'dev.apkrelay.demo',
  hash: '0123456789abcdef0123456789abcdef',
  plVersion: '5.6.0',
  pid: '4242',
  localAdress: '/10.0.2.15:41234',
  brand: 'google',
  model: 'Pixel 3a',
  buildId: 'RQ3A.211001.001',
  osVersion: '11',
  androidId: 'aid-device-x',
  metadata: { till: 'Kasse 3 – Café' },
  heartbeatIntervalInSeconds: 30,
  lastDownloadHash: '',
  currentStrategy: 'STATUS_BAR',
};

/** SDK 5.0.3 sends none of the last three members. */
const SDK_503: SubscribeFields = {
  deviceId: 'device-y',
  apiKey: 'k'.repeat(32),
  package: 'dev.apkrelay.demo',
  hash: '',
  plVersion: '5.0.3',
  pid: '977',
  localAdress: '/192.168.1.20:40001',
  brand: 'samsung',
  model: 'GT-I9300',
  buildId: 'KOT49H',
  osVersion: '4.4.2',
  androidId: 'aid-device-y',
  metadata: {},
};

/** [name, bytes in hex]: device lines (without their `\n`) that are not subscribe lines. */
const DEVICE_LINES: ReadonlyArray<readonly [string, string]> = [
  ['heartbeat', ''],
  ['heartbeat with blanks and a CR', '20200d'],
  ['not UTF-8', '7bff7d'],
  ['not JSON', '7b'],
  ['a JSON array', '5b5d'],
  ['JSON null', '6e756c6c'],
];

function pushlinkVectors() {
  const server: ReadonlyArray<readonly [string, string]> = [
    ['apk to run', apkLine('0123456789abcdef0123456789abcdef')],
    [
      'known text',
      textLine('Device register failed: Invalid Package. Probably you never uploaded this app.'),
    ],
    ['text with quotes, non-ASCII and a newline', textLine('Zwei – "ü" / 🚀\nzwei')],
  ];
  const serverLines = server.map(([name, line]) => ({
    name,
    line,
    read: readServerLine(line.slice(0, -1)),
  }));
  const subscribe: ReadonlyArray<readonly [string, SubscribeFields]> = [
    ['SDK 5.6.0', SDK_560],
    ['SDK 5.0.3', SDK_503],
  ];
  const subscribeLines = subscribe.map(([name, fields]) => {
    const line = subscribeLine(fields);
    return { name, fields, line, read: readDeviceLine(Buffer.from(line.slice(0, -1))) };
  });
  const deviceLines = DEVICE_LINES.map(([name, hex]) => ({
    name,
    hex,
    read: readDeviceLine(Buffer.from(hex, 'hex')),
  }));
  return { serverLines, subscribeLines, deviceLines };
}

/** The vectors, computed from the protocol layer and the server's signer. */
export function protocolVectors() {
  return {
    comment:
      'Written by ops/protocol/vectors.ts (npm run protocol:vectors) from device-client/protocol/ ' +
      'and the server signer; checked against hand-written values in ' +
      'test/unit/ops/protocol/vectors.test.ts; read by the Java core (ProtocolVectorsTest).',
    canonicalJson: CANONICAL_INPUTS.map(([name, input]) => ({
      name,
      input,
      output: canonicalJson(JSON.parse(input)),
    })),
    signedNotices: signedNoticeVectors(),
    pushlink: pushlinkVectors(),
  };
}

/** The file's exact text. */
export function vectorsText(): string {
  return `${JSON.stringify(protocolVectors(), null, 2)}\n`;
}

if (require.main === module) {
  // dist/ops/protocol/vectors.js: the repository's root is three folders up.
  writeFileSync(join(__dirname, '../../..', VECTORS_FILE), vectorsText());
  process.stdout.write(`wrote ${VECTORS_FILE}\n`);
  writeFileSync(join(__dirname, '../../..', DELTA_VECTORS_FILE), deltaVectorsText());
  process.stdout.write(`wrote ${DELTA_VECTORS_FILE}\n`);
  void delta2VectorsText().then((text) => {
    writeFileSync(join(__dirname, '../../..', DELTA2_VECTORS_FILE), text);
    process.stdout.write(`wrote ${DELTA2_VECTORS_FILE}\n`);
  });
}
