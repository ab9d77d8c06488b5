import { readManifest, minSdkForCodename } from '../../../../../shared/apk/manifest/read-manifest';
import {
  ANDROID_NS,
  T_BOOLEAN,
  T_INT_DEC,
  T_INT_HEX,
  T_REFERENCE,
  T_STRING,
  buildAxml,
  type TestAttr,
  type TestElement,
} from '../../../../helpers/apk/build-axml';

const a = (
  name: string,
  id: number | undefined,
  type: number,
  value: number | string,
): TestAttr => ({
  name,
  ns: id === undefined ? undefined : ANDROID_NS,
  ...(id === undefined ? {} : { id }),
  type,
  value,
});

function manifest(opts: {
  names?: Partial<Record<string, string>>;
  usesSdk?: TestAttr[];
  manifestAttrs?: TestAttr[];
  appAttrs?: TestAttr[];
}): TestElement {
  const n = (k: string): string => opts.names?.[k] ?? k;
  return {
    name: 'manifest',
    attrs: [
      a(n('versionCode'), 0x0101021b, T_INT_DEC, 42),
      a(n('versionName'), 0x0101021c, T_STRING, '4.2'),
      a('package', undefined, T_STRING, 'dev.example.app'),
      ...(opts.manifestAttrs ?? []),
    ],
    children: [
      {
        name: 'uses-sdk',
        attrs: opts.usesSdk ?? [
          a(n('minSdkVersion'), 0x0101020c, T_INT_DEC, 21),
          a(n('targetSdkVersion'), 0x01010270, T_INT_DEC, 34),
        ],
      },
      {
        name: 'application',
        attrs: [
          a(n('testOnly'), 0x01010272, T_BOOLEAN, 0xffffffff),
          a(n('debuggable'), 0x0101000f, T_BOOLEAN, 0),
          a('label', 0x01010001, T_STRING, 'Example'),
          ...(opts.appAttrs ?? []),
        ],
      },
    ],
  };
}

describe('binary AndroidManifest reader', () => {
  test('reads the fields the service needs', () => {
    expect(readManifest(buildAxml(manifest({})))).toEqual({
      package: 'dev.example.app',
      versionCode: 42,
      versionName: '4.2',
      minSdk: 21,
      targetSdk: 34,
      targetSandboxVersion: 1,
      testOnly: true,
      debuggable: false,
      label: 'Example',
    });
  });

  test('resolves attributes by resource ID when their names were altered', () => {
    const names = {
      versionCode: 'versionCodx',
      versionName: 'vN',
      minSdkVersion: 'minSdkVersiom',
      targetSdkVersion: 'zzz',
      testOnly: 'testOnlx',
      debuggable: 'dbg',
    };
    const info = readManifest(buildAxml(manifest({ names })));
    expect(info).toMatchObject({
      versionCode: 42,
      versionName: '4.2',
      minSdk: 21,
      targetSdk: 34,
      testOnly: true,
    });
  });

  test('ignores an attribute with the right name but no resource ID', () => {
    const info = readManifest(
      buildAxml(manifest({ usesSdk: [a('minSdkVersion', undefined, T_INT_DEC, 30)] })),
    );
    expect(info.minSdk).toBe(1);
    expect(info.targetSdk).toBe(1);
  });

  test('combines versionCodeMajor and versionCode', () => {
    const info = readManifest(
      buildAxml(manifest({ manifestAttrs: [a('versionCodeMajor', 0x01010576, T_INT_HEX, 3)] })),
    );
    expect(info.versionCode).toBe(3 * 2 ** 32 + 42);
  });

  test('treats a minSdkVersion codename like apksig', () => {
    expect(minSdkForCodename('O')).toBe(25);
    expect(minSdkForCodename('P')).toBe(26);
    expect(minSdkForCodename('Tiramisu')).toBe(30);
    expect(minSdkForCodename('B')).toBe(1);
    let thrown: unknown;
    try {
      minSdkForCodename('tiramisu');
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toMatchObject({ code: 'MANIFEST_UNKNOWN_CODENAME' });
    const info = readManifest(
      buildAxml(manifest({ usesSdk: [a('minSdkVersion', 0x0101020c, T_STRING, 'N')] })),
    );
    expect(info.minSdk).toBe(23);
    expect(info.targetSdk).toBe(23);
  });

  test('falls back to minSdk when targetSdkVersion is not an integer', () => {
    const info = readManifest(
      buildAxml(
        manifest({
          usesSdk: [
            a('minSdkVersion', 0x0101020c, T_INT_DEC, 26),
            a('targetSdkVersion', 0x01010270, T_STRING, 'UpsideDownCake'),
          ],
        }),
      ),
    );
    expect(info.targetSdk).toBe(26);
  });

  test('reads targetSandboxVersion and treats a referenced debuggable as true', () => {
    const info = readManifest(
      buildAxml(
        manifest({
          manifestAttrs: [a('targetSandboxVersion', 0x0101054c, T_INT_DEC, 2)],
          appAttrs: [],
        }),
      ),
    );
    expect(info.targetSandboxVersion).toBe(2);
    const doc = manifest({});
    const app = doc.children?.[1];
    app!.attrs = [a('debuggable', 0x0101000f, T_REFERENCE, 0x7f050001)];
    expect(readManifest(buildAxml(doc))).toMatchObject({
      debuggable: true,
      testOnly: false,
      label: null,
    });
  });
});

describe('binary AndroidManifest reader on hostile input', () => {
  const good = buildAxml(manifest({}));
  const code = (bytes: Buffer): string => {
    try {
      readManifest(bytes);
      return 'parsed';
    } catch (err) {
      return (err as { code?: string }).code ?? `uncoded ${String(err)}`;
    }
  };

  test('truncated documents end in a typed error, never an uncaught one', () => {
    for (let n = 0; n < good.length; n += 7) {
      expect(['MANIFEST_MALFORMED', 'parsed']).toContain(code(good.subarray(0, n)));
    }
    expect(code(Buffer.alloc(0))).toBe('MANIFEST_MALFORMED');
  });

  test('an absurd string count is refused', () => {
    const bad = Buffer.from(good);
    bad.writeUInt32LE(0x7fffffff, 8 + 8); // string pool: stringCount
    expect(code(bad)).toBe('MANIFEST_MALFORMED');
  });

  test('random corruption gives only typed errors, and many are refused', () => {
    let seed = 7;
    const seen = new Map<string, number>();
    for (let i = 0; i < 500; i++) {
      const bad = Buffer.from(good);
      for (let j = 0; j < 4; j++) {
        seed = (seed * 1103515245 + 12345) % 2 ** 31;
        bad[seed % bad.length] = seed & 0xff;
      }
      const got = code(bad);
      expect(['MANIFEST_MALFORMED', 'MANIFEST_UNKNOWN_CODENAME', 'parsed']).toContain(got);
      seen.set(got, (seen.get(got) ?? 0) + 1);
    }
    // Chunk headers, sizes, pool offsets and attribute records are a large share of a small
    // manifest: a reader that checks them refuses a good part of these; one that checks nothing
    // refuses none. (A changed string or attribute value still parses, rightly.)
    expect(seen.get('MANIFEST_MALFORMED') ?? 0).toBeGreaterThanOrEqual(100);
    expect(seen.get('parsed') ?? 0).toBeGreaterThan(0);
  });

  test('deep nesting is refused', () => {
    let e: TestElement = { name: 'x' };
    for (let i = 0; i < 1100; i++) e = { name: 'x', children: [e] };
    expect(code(buildAxml({ name: 'manifest', children: [e] }))).toBe('MANIFEST_MALFORMED');
  });
});
