/**
 * The protocol layer's shared vectors (device-client/protocol/vectors/protocol-vectors.json, read
 * by the Java core too): the committed file is exactly what ops/protocol/vectors.ts writes today
 * (stale vectors fail), and what it says is checked against values written here by hand, from the
 * spec and RFC 8032, so the generator and the layer cannot drift together unnoticed.
 */
import { createPublicKey, verify } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { VECTORS_FILE, vectorsText } from '../../../../ops/protocol/vectors';
import { parseDeviceLine } from '../../../../shared/devices/pushlink-protocol';

const root = join(__dirname, '../../../..');
const text = readFileSync(join(root, VECTORS_FILE), 'utf8');

interface Vectors {
  canonicalJson: Array<{ name: string; input: string; output: string }>;
  signedNotices: {
    seed: string;
    publicKey: string;
    cases: Array<{
      name: string;
      notice: Record<string, unknown>;
      signedText: string;
      signature: string;
    }>;
  };
  pushlink: {
    serverLines: Array<{ name: string; line: string; read: unknown }>;
    subscribeLines: Array<{ name: string; fields: unknown; line: string; read: unknown }>;
    deviceLines: Array<{ name: string; hex: string; read: unknown }>;
  };
}
const vectors = JSON.parse(text) as Vectors;

test('the committed vectors are what the generator writes (run npm run protocol:vectors)', () => {
  expect(text).toBe(vectorsText());
});

test('canonical JSON: every input gives the output written here by hand', () => {
  expect(vectors.canonicalJson.map((c) => [c.input, c.output])).toEqual([
    ['{"b":1,"a":{"d":[2,{"z":1,"y":0}],"c":"x"}}', '{"a":{"c":"x","d":[2,{"y":0,"z":1}]},"b":1}'],
    ['{"b":0,"B":1,"é":2,"e":3,"_":4,"😀":5,"":6}', '{"":6,"B":1,"_":4,"b":0,"e":3,"é":2,"😀":5}'],
    ['[3,1,2,[{"b":null,"a":true}]]', '[3,1,2,[{"a":true,"b":null}]]'],
    [
      '[1.5,-0,1e21,1e-7,100,0.1,-2.5e-8,123456789012]',
      '[1.5,0,1e+21,1e-7,100,0.1,-2.5e-8,123456789012]',
    ],
    [
      '{"s":"quote\\" backslash\\\\ tab\\t nl\\n ctl\\u0001 del\\u007f"}',
      '{"s":"quote\\" backslash\\\\ tab\\t nl\\n ctl\\u0001 del\u007f"}',
    ],
    ['{"s":"é – ü \\u2028 🚀"}', '{"s":"é – ü \u2028 🚀"}'],
    ['[null,true,false,"",0]', '[null,true,false,"",0]'],
    ['{"o":{},"a":[]}', '{"a":[],"o":{}}'],
  ]);
});

// RFC 8032 section 7.1, TEST 1: the seed and its public key, behind the Ed25519 SPKI prefix.
const RFC_SEED = '9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60';
const RFC_PUBLIC = 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a';
const SPKI_PREFIX = '302a300506032b6570032100';

const SIGNED_TEXTS = [
  '{"account":"6745a1b2c3d4e5f6000000aa","apkId":"6745a1b2c3d4e5f601234567","device":"device-x",' +
    '"issuedAt":"2026-11-25T16:59:30.000Z","md5":"0123456789abcdef0123456789abcdef",' +
    '"package":"dev.apkrelay.demo",' +
    '"sha256":"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",' +
    '"size":1048576,"type":"version",' +
    '"url":"https://web.example/download?package=dev.apkrelay.demo","v":2,"versionCode":2,' +
    '"versionName":"Zwei – \\"ü\\" / 🚀\\n\\u0001"}',
  '{"account":"6745a1b2c3d4e5f6000000aa","apkId":"6745a1b2c3d4e5f601234567","device":"*",' +
    '"issuedAt":"2026-11-25T16:59:30.000Z","md5":null,"package":"dev.apkrelay.demo",' +
    '"type":"giveup","v":2}',
];

describe('signed notices', () => {
  const { seed, publicKey, cases } = vectors.signedNotices;
  const key = createPublicKey({
    key: Buffer.from(SPKI_PREFIX + RFC_PUBLIC, 'hex'),
    format: 'der',
    type: 'spki',
  });

  test('the key is RFC 8032 TEST 1', () => {
    expect(seed).toBe(RFC_SEED);
    expect(Buffer.from(publicKey, 'base64').toString('hex')).toBe(SPKI_PREFIX + RFC_PUBLIC);
  });

  test('each notice signs exactly the text written here by hand', () => {
    expect(cases.map((c) => c.signedText)).toEqual(SIGNED_TEXTS);
  });

  test.each(cases.map((c) => [c.name, c] as const))(
    '%s: its signature verifies with the RFC public key, and not over other bytes',
    (_name, c) => {
      const signature = Buffer.from(c.signature, 'base64');
      expect(c.notice.signature).toBe(c.signature);
      expect(verify(null, Buffer.from(c.signedText), key, signature)).toBe(true);
      expect(verify(null, Buffer.from(`${c.signedText} `), key, signature)).toBe(false);
    },
  );
});

describe('PushLink lines', () => {
  const { serverLines, subscribeLines, deviceLines } = vectors.pushlink;

  test('server lines: the exact lines, and read back', () => {
    expect(serverLines.map((l) => [l.line, l.read])).toEqual([
      [
        '{"mt":"0","msg":"0123456789abcdef0123456789abcdef"}\n',
        { mt: '0', msg: '0123456789abcdef0123456789abcdef' },
      ],
      [
        '{"mt":"1","msg":"Device register failed: Invalid Package. Probably you never uploaded this app."}\n',
        {
          mt: '1',
          msg: 'Device register failed: Invalid Package. Probably you never uploaded this app.',
        },
      ],
      [
        '{"mt":"1","msg":"Zwei – \\"ü\\" / 🚀\\nzwei"}\n',
        { mt: '1', msg: 'Zwei – "ü" / 🚀\nzwei' },
      ],
    ]);
  });

  test('subscribe lines: the exact lines, read back to their fields, accepted by the server', () => {
    expect(subscribeLines.map((l) => l.line)).toEqual([
      '{"deviceId":"device-x","apiKey":"kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk",' +
        '"package":"dev.apkrelay.demo","hash":"0123456789abcdef0123456789abcdef",' +
        '"plVersion":"5.6.0","pid":"4242","localAdress":"/10.0.2.15:41234","brand":"google",' +
        '"model":"Pixel 3a","buildId":"RQ3A.211001.001","osVersion":"11",' +
        '"androidId":"aid-device-x","metadata":{"till":"Kasse 3 – Café"},' +
        '"heartbeatIntervalInSeconds":30,"lastDownloadHash":"","currentStrategy":"STATUS_BAR"}\n',
      '{"deviceId":"device-y","apiKey":"kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk",' +
        '"package":"dev.apkrelay.demo","hash":"","plVersion":"5.0.3","pid":"977",' +
        '"localAdress":"/192.168.1.20:40001","brand":"samsung","model":"GT-I9300",' +
        '"buildId":"KOT49H","osVersion":"4.4.2","androidId":"aid-device-y","metadata":{}}\n',
    ]);
    for (const l of subscribeLines) {
      expect(l.read).toEqual({ kind: 'object', value: l.fields });
      const parsed = parseDeviceLine(Buffer.from(l.line.slice(0, -1)));
      expect(parsed.kind).toBe('subscribe');
    }
  });

  test('other device lines: heartbeats and the refusals the spec words', () => {
    const bad = 'Device register failed: Invalid subscribe line.';
    expect(deviceLines.map((l) => [l.hex, l.read])).toEqual([
      ['', { kind: 'heartbeat' }],
      ['20200d', { kind: 'heartbeat' }],
      ['7bff7d', { kind: 'invalid', text: `${bad} Not UTF-8.` }],
      ['7b', { kind: 'invalid', text: `${bad} Not JSON.` }],
      ['5b5d', { kind: 'invalid', text: `${bad} Not a JSON object.` }],
      ['6e756c6c', { kind: 'invalid', text: `${bad} Not a JSON object.` }],
    ]);
  });
});
