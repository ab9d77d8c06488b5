import {
  attributeValue,
  equalsIgnoreCase,
  parseManifest,
  type ManifestSection,
} from '../../../../../shared/apk/v1/manifest-parser';

const bytesOf = (text: string): Buffer => Buffer.from(text, 'utf8');

function sectionText(input: Buffer, s: ManifestSection): string {
  return input.subarray(s.startOffset, s.startOffset + s.sizeBytes).toString('utf8');
}

describe('parseManifest', () => {
  it('splits main and individual sections and records their exact byte ranges', () => {
    const text =
      'Manifest-Version: 1.0\r\nCreated-By: test\r\n\r\n' +
      'Name: a.txt\r\nSHA-256-Digest: AAAA\r\n\r\n' +
      'Name: b.txt\r\nSHA-256-Digest: BBBB\r\n\r\n';
    const input = bytesOf(text);
    const m = parseManifest(input);
    expect(m.mainSection?.name).toBeNull();
    expect(attributeValue(m.mainSection as ManifestSection, 'Created-By')).toBe('test');
    expect(sectionText(input, m.mainSection as ManifestSection)).toBe(
      'Manifest-Version: 1.0\r\nCreated-By: test\r\n\r\n',
    );
    expect(m.individualSections.map((s) => s.name)).toEqual(['a.txt', 'b.txt']);
    expect(m.individualSections.map((s) => sectionText(input, s))).toEqual([
      'Name: a.txt\r\nSHA-256-Digest: AAAA\r\n\r\n',
      'Name: b.txt\r\nSHA-256-Digest: BBBB\r\n\r\n',
    ]);
  });

  it('joins continuation lines (leading space dropped) and keeps them inside the section bytes', () => {
    const text = 'Manifest-Version: 1.0\n\nName: a-very-long-na\n me.txt\nSHA1-Digest: xyz\n\n';
    const input = bytesOf(text);
    const [section] = parseManifest(input).individualSections;
    expect(section?.name).toBe('a-very-long-name.txt');
    expect(sectionText(input, section as ManifestSection)).toBe(
      'Name: a-very-long-na\n me.txt\nSHA1-Digest: xyz\n\n',
    );
  });

  it('treats LF, CRLF and a lone CR as line ends', () => {
    const m = parseManifest(bytesOf('A: 1\rB: 2\r\nC: 3\n\rName: x\r'));
    expect(m.mainSection?.attributes).toEqual([
      { name: 'A', value: '1' },
      { name: 'B', value: '2' },
      { name: 'C', value: '3' },
    ]);
    expect(m.individualSections.map((s) => s.name)).toEqual(['x']);
  });

  it('ends the last section at end of input without a blank line', () => {
    const input = bytesOf('M: 1\n\nName: last\nSHA1-Digest: q');
    const [last] = parseManifest(input).individualSections;
    expect(sectionText(input, last as ManifestSection)).toBe('Name: last\nSHA1-Digest: q');
  });

  it('skips extra blank lines between sections, starting the next section after them', () => {
    const input = bytesOf('M: 1\n\n\n\nName: a\n\n');
    const [a] = parseManifest(input).individualSections;
    expect(a?.startOffset).toBe('M: 1\n\n\n\n'.length);
    expect(sectionText(input, a as ManifestSection)).toBe('Name: a\n\n');
  });

  it('splits name and value at the first ": " only, keeping odd spaces', () => {
    const m = parseManifest(bytesOf('Key : v: w \nNoSeparator\nName:x\n'));
    expect(m.mainSection?.attributes).toEqual([
      { name: 'Key ', value: 'v: w ' },
      { name: 'NoSeparator', value: '' },
      { name: 'Name:x', value: '' },
    ]);
  });

  it('names a section only when its first attribute is Name (any case)', () => {
    const m = parseManifest(bytesOf('M: 1\n\nNAME: up\n\nSHA1-Digest: d\nName: late\n\n'));
    expect(m.individualSections.map((s) => s.name)).toEqual(['up', null]);
  });

  it('matches attribute names case-insensitively, first one wins', () => {
    const [s] = parseManifest(
      bytesOf('M: 1\n\nName: a\nsha-256-digest: first\nSHA-256-Digest: second\n\n'),
    ).individualSections;
    expect(attributeValue(s as ManifestSection, 'SHA-256-Digest')).toBe('first');
    expect(attributeValue(s as ManifestSection, 'SHA-512-Digest')).toBeNull();
  });

  it('yields an empty manifest for empty or blank input', () => {
    expect(parseManifest(Buffer.alloc(0))).toEqual({ mainSection: null, individualSections: [] });
    expect(parseManifest(bytesOf('\r\n\n\r'))).toEqual({
      mainSection: null,
      individualSections: [],
    });
  });

  it('turns a CR inside an entry name into a section break, as Android does', () => {
    // What jarsigner writes for an entry named "test.txt\r": the name ends at the CR and the
    // digest line becomes an unnamed section.
    const m = parseManifest(bytesOf('M: 1\r\n\r\nName: test.txt\r\r\nSHA-256-Digest: x\r\n\r\n'));
    expect(m.individualSections.map((s) => s.name)).toEqual(['test.txt', null]);
  });

  it('keeps a NUL inside an entry name', () => {
    const [s] = parseManifest(
      bytesOf('M: 1\r\n\r\nName: test.txt\u0000\r\n\r\n'),
    ).individualSections;
    expect(s?.name).toBe('test.txt\u0000');
  });

  // Its cost (linear, not quadratic) is shown by `npm run bench:inspect`, not timed here.
  it('parses a long run of continuation lines into one name', () => {
    const input = bytesOf(`M: 1\n\nName: ${'x'.repeat(70)}${'\n y'.repeat(200_000)}\n\n`);
    const [s] = parseManifest(input).individualSections;
    expect(s?.name).toHaveLength(70 + 200_000);
    expect(s?.name?.endsWith('yyy')).toBe(true);
  });
});

describe('equalsIgnoreCase', () => {
  it('compares like Java String.equalsIgnoreCase', () => {
    expect(equalsIgnoreCase('Signature-Version', 'signature-version')).toBe(true);
    expect(equalsIgnoreCase('SHA1-Digest', 'SHA1-Digest-Manifest')).toBe(false);
    expect(equalsIgnoreCase('Name', 'Nam')).toBe(false);
    expect(equalsIgnoreCase('straße', 'STRASSE')).toBe(false);
  });
});
