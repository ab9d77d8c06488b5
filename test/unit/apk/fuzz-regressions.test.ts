/**
 * Inputs the parser fuzzers (test/resilience/fuzz) found crashing or hanging the APK core, kept
 * as small fixtures (test/fixtures/fuzz-regressions/, see its README) or built here. Each must end
 * in the parsers' own verdict.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ApkFormatError } from '../../../shared/apk/issues';
import { readManifest } from '../../../shared/apk/manifest/read-manifest';
import { buildAxml, T_STRING } from './helpers/build-axml';

const FIXTURES = path.resolve(__dirname, '../../fixtures/fuzz-regressions');

function thrownBy(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  return undefined;
}

/** A manifest whose only element declares `attrSize`-byte attributes and ends where they end. */
function compactAttributes(attrSize: number): Buffer {
  const xml = buildAxml({
    name: 'manifest',
    attrs: [{ name: 'package', type: T_STRING, value: 'a.b' }],
  });
  let el = xml.readUInt16LE(2);
  while (xml.readUInt16LE(el) !== 0x0102) el += xml.readUInt32LE(el + 4);
  const size = xml.readUInt32LE(el + 4);
  const contents = el + xml.readUInt16LE(el + 2);
  const out = Buffer.from(xml);
  out.writeUInt16LE(attrSize, contents + 10);
  const cut = contents - el + out.readUInt16LE(contents + 8) + attrSize;
  out.writeUInt32LE(cut, el + 4);
  const doc = Buffer.concat([out.subarray(0, el + cut), out.subarray(el + size)]);
  doc.writeUInt32LE(doc.length, 4);
  return doc;
}

describe('fuzz regressions: binary XML reader', () => {
  test('an attribute declared under 20 bytes, at the end of its element, is refused (fuzzer input)', () => {
    const xml = readFileSync(path.join(FIXTURES, 'manifest-attribute-size-under-20.axml'));
    const err = thrownBy(() => readManifest(xml));
    expect(err).toBeInstanceOf(ApkFormatError);
    expect(err).toMatchObject({ code: 'MANIFEST_MALFORMED' });
  });

  test.each([16, 17, 18, 19])(
    'attribute size %i with the element cut at its declared end',
    (size) => {
      const err = thrownBy(() => readManifest(compactAttributes(size)));
      expect(err).toBeInstanceOf(ApkFormatError);
      expect(err).toMatchObject({ code: 'MANIFEST_MALFORMED' });
    },
  );

  test('the same layout with 20-byte attributes still parses', () => {
    expect(readManifest(compactAttributes(20)).package).toBe('a.b');
  });
});
