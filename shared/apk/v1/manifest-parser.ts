/**
 * JAR manifest (META-INF/MANIFEST.MF) and signature file (.SF) parser, a port of apksig's
 * `internal/jar/ManifestParser.java`. A file is a main section followed by individual
 * sections; each section records where it lies in the input, because the .SF file signs
 * manifest sections by digesting their exact bytes.
 *
 * Lines end in CRLF, LF or a lone CR; a line starting with a space continues the previous
 * one; an empty line ends a section. Name and value are split at the first ": " so that
 * unusual spaces (used by some obfuscators) are kept. Lines are decoded as UTF-8.
 */

export interface ManifestAttribute {
  readonly name: string;
  readonly value: string;
}

export interface ManifestSection {
  /** Byte offset of the section's first line in the input. */
  readonly startOffset: number;
  /** Bytes from the first line up to and including the blank line that ends it. */
  readonly sizeBytes: number;
  /** Value of the first attribute when it is `Name` (case-insensitive), else null. */
  readonly name: string | null;
  readonly attributes: readonly ManifestAttribute[];
}

export interface ParsedManifest {
  readonly mainSection: ManifestSection | null;
  readonly individualSections: readonly ManifestSection[];
}

/** Java's `String.equalsIgnoreCase`: per UTF-16 unit, equal after upper- or lower-casing. */
export function equalsIgnoreCase(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as string;
    const y = b[i] as string;
    if (x === y) continue;
    const ux = x.toUpperCase();
    const uy = y.toUpperCase();
    if (ux === uy) continue;
    if (ux.toLowerCase() === uy.toLowerCase()) continue;
    return false;
  }
  return true;
}

/** The value of the first attribute called `name` (case-insensitive), or null. */
export function attributeValue(section: ManifestSection, name: string): string | null {
  for (const attr of section.attributes) {
    if (equalsIgnoreCase(attr.name, name)) return attr.value;
  }
  return null;
}

const CR = 0x0d;
const LF = 0x0a;
const SPACE = 0x20;

/** Splits the input into lines, remembering where each one ends (after its terminator). */
class LineReader {
  private offset = 0;
  constructor(private readonly data: Buffer) {}

  get position(): number {
    return this.offset;
  }

  /** The next line without its terminator, or null at end of input. */
  next(): Buffer | null {
    const { data } = this;
    if (this.offset >= data.length) return null;
    const start = this.offset;
    let i = start;
    while (i < data.length && data[i] !== CR && data[i] !== LF) i++;
    let end = i;
    if (i < data.length) {
      end = data[i] === CR && data[i + 1] === LF ? i + 2 : i + 1;
    }
    this.offset = end;
    return data.subarray(start, i);
  }
}

function parseAttribute(line: string): ManifestAttribute {
  const i = line.indexOf(': ');
  return i === -1
    ? { name: line, value: '' }
    : { name: line.slice(0, i), value: line.slice(i + 2) };
}

/**
 * Reads sections one after another. Mirrors apksig's buffered-line state machine: a section
 * ends at an empty line or at end of input, and its size includes the terminating blank line.
 */
class SectionReader {
  private readonly lines: LineReader;
  /** A line read ahead (the start of the next attribute), or an empty buffer meaning "end of section". */
  private pending: Buffer | null = null;

  constructor(data: Buffer) {
    this.lines = new LineReader(data);
  }

  /** The next logical attribute line; '' at end of section; null at end of input. */
  private readAttribute(): string | null {
    if (this.pending !== null && this.pending.length === 0) {
      this.pending = null;
      return '';
    }
    let parts: Buffer[];
    if (this.pending !== null) {
      parts = [this.pending];
      this.pending = null;
    } else {
      const line = this.lines.next();
      if (line === null) return null;
      if (line.length === 0) return '';
      parts = [line];
    }
    for (;;) {
      const line = this.lines.next();
      if (line === null) break;
      if (line.length === 0) {
        this.pending = Buffer.alloc(0);
        break;
      }
      if (line[0] === SPACE) {
        parts.push(line.subarray(1));
        continue;
      }
      this.pending = line;
      break;
    }
    return Buffer.concat(parts).toString('utf8');
  }

  /**
   * Like apksig, offsets are taken from the line reader: whenever a section starts or ends no
   * attribute line is held back, so the reader's position is exactly the section boundary.
   */
  readSection(): ManifestSection | null {
    let startOffset: number;
    let attr: string | null;
    do {
      startOffset = this.lines.position;
      attr = this.readAttribute();
      if (attr === null) return null;
    } while (attr.length === 0);
    const attributes: ManifestAttribute[] = [parseAttribute(attr)];
    for (;;) {
      attr = this.readAttribute();
      if (attr === null || attr.length === 0) break;
      attributes.push(parseAttribute(attr));
    }
    const end = this.lines.position;
    const first = attributes[0] as ManifestAttribute;
    return {
      startOffset,
      sizeBytes: end - startOffset,
      name: equalsIgnoreCase(first.name, 'Name') ? first.value : null,
      attributes,
    };
  }
}

/** Parses a whole manifest or signature file. */
export function parseManifest(data: Buffer): ParsedManifest {
  const reader = new SectionReader(data);
  const mainSection = reader.readSection();
  const individualSections: ManifestSection[] = [];
  for (let s = reader.readSection(); s !== null; s = reader.readSection())
    individualSections.push(s);
  return { mainSection, individualSections };
}
