/**
 * Builds small Android binary XML documents for tests: a UTF-16 string pool, a resource map and
 * start/end element chunks, laid out as aapt does.
 */
export interface TestAttr {
  name: string;
  /** Resource ID for the name, placed in the resource map. */
  id?: number;
  ns?: string;
  type: number;
  /** Raw data; for strings, the string itself. */
  value: number | string;
}

export interface TestElement {
  name: string;
  attrs?: TestAttr[];
  children?: TestElement[];
}

export const ANDROID_NS = 'http://schemas.android.com/apk/res/android';
export const T_STRING = 0x03;
export const T_INT_DEC = 0x10;
export const T_INT_HEX = 0x11;
export const T_BOOLEAN = 0x12;
export const T_REFERENCE = 0x01;

function chunk(type: number, headerSize: number, header: Buffer, body: Buffer): Buffer {
  const h = Buffer.alloc(8);
  h.writeUInt16LE(type, 0);
  h.writeUInt16LE(headerSize, 2);
  h.writeUInt32LE(headerSize + body.length, 4);
  return Buffer.concat([h, header, body]);
}

function stringPool(strings: string[]): Buffer {
  const offsets = Buffer.alloc(strings.length * 4);
  const data: Buffer[] = [];
  let pos = 0;
  strings.forEach((s, i) => {
    offsets.writeUInt32LE(pos, i * 4);
    const len = Buffer.alloc(2);
    len.writeUInt16LE(s.length);
    const enc = Buffer.concat([len, Buffer.from(s, 'utf16le'), Buffer.alloc(2)]);
    data.push(enc);
    pos += enc.length;
  });
  let body = Buffer.concat([offsets, ...data]);
  if (body.length % 4) body = Buffer.concat([body, Buffer.alloc(4 - (body.length % 4))]);
  const header = Buffer.alloc(20);
  header.writeUInt32LE(strings.length, 0);
  header.writeUInt32LE(0, 4); // styles
  header.writeUInt32LE(0, 8); // flags: UTF-16
  header.writeUInt32LE(28 + offsets.length, 12); // strings start, from chunk start
  return chunk(0x0001, 28, header, body);
}

/** Serialises `root`; attribute names with an `id` come first so the resource map lines up. */
export function buildAxml(root: TestElement): Buffer {
  const strings: string[] = [];
  const ids: number[] = [];
  const all: TestAttr[] = [];
  const walk = (e: TestElement): void => {
    all.push(...(e.attrs ?? []));
    (e.children ?? []).forEach(walk);
  };
  walk(root);
  for (const a of all) {
    if (a.id !== undefined && !strings.includes(a.name)) {
      strings.push(a.name);
      ids.push(a.id);
    }
  }
  const index = (s: string): number => {
    let i = strings.indexOf(s);
    if (i < 0) i = strings.push(s) - 1;
    return i;
  };
  const elements: Buffer[] = [];
  const emit = (e: TestElement): void => {
    const attrs = (e.attrs ?? []).map((a) => {
      const b = Buffer.alloc(20);
      b.writeUInt32LE(a.ns === undefined ? 0xffffffff : index(a.ns), 0);
      b.writeUInt32LE(index(a.name), 4);
      b.writeUInt32LE(typeof a.value === 'string' ? index(a.value) : 0xffffffff, 8);
      b.writeUInt16LE(8, 12);
      b.writeUInt8(a.type, 15);
      b.writeUInt32LE(typeof a.value === 'string' ? index(a.value) : a.value >>> 0, 16);
      return b;
    });
    const head = Buffer.alloc(8);
    head.writeUInt32LE(1, 0);
    head.writeUInt32LE(0xffffffff, 4);
    const body = Buffer.alloc(20);
    body.writeUInt32LE(0xffffffff, 0);
    body.writeUInt32LE(index(e.name), 4);
    body.writeUInt16LE(20, 8);
    body.writeUInt16LE(20, 10);
    body.writeUInt16LE(attrs.length, 12);
    elements.push(chunk(0x0102, 16, head, Buffer.concat([body, ...attrs])));
    (e.children ?? []).forEach(emit);
    const end = Buffer.alloc(8);
    end.writeUInt32LE(0xffffffff, 0);
    end.writeUInt32LE(index(e.name), 4);
    elements.push(chunk(0x0103, 16, head, end));
  };
  emit(root);
  const map = Buffer.alloc(ids.length * 4);
  ids.forEach((id, i) => map.writeUInt32LE(id, i * 4));
  const inner = Buffer.concat([
    stringPool(strings),
    chunk(0x0180, 8, Buffer.alloc(0), map),
    ...elements,
  ]);
  return chunk(0x0003, 8, Buffer.alloc(0), inner);
}
