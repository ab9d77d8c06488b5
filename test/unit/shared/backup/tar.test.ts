import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { tarEntries, tarHeader, tarStream } from '../../../../shared/backup/tar';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'apkrelay-tar-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function* rechunk(source: AsyncIterable<Buffer>, size: number): AsyncGenerator<Buffer> {
  const all: Buffer[] = [];
  for await (const c of source) all.push(c);
  const whole = Buffer.concat(all);
  for (let i = 0; i < whole.length; i += size) yield whole.subarray(i, i + size);
}

test.each([1, 7, 512, 100_000])('round trip in %i-byte chunks', async (chunk) => {
  const files = [
    { name: 'manifest.json', data: Buffer.from('{"a":1}') },
    { name: 'collections/0.ejson', data: Buffer.alloc(0) },
    { name: 'gridfs/0/0.bin', data: Buffer.alloc(70_001, 7) },
    { name: 'x', data: Buffer.alloc(512, 1) },
  ];
  const inputs = [];
  for (const [i, f] of files.entries()) {
    const file = path.join(dir, `f${i}`);
    await writeFile(file, f.data);
    inputs.push({ name: f.name, file, size: f.data.length });
  }
  const out: Array<{ name: string; data: Buffer }> = [];
  for await (const entry of tarEntries(rechunk(tarStream(inputs, new Date(0)), chunk))) {
    const parts: Buffer[] = [];
    for await (const c of entry.body) parts.push(c);
    out.push({ name: entry.name, data: Buffer.concat(parts) });
    expect(entry.size).toBe(files[out.length - 1]!.data.length);
  }
  expect(out).toEqual(files);
});

async function* single(b: Buffer): AsyncGenerator<Buffer> {
  await Promise.resolve();
  yield b;
}

test('a corrupted header or a truncated archive is an error', async () => {
  const header = tarHeader('a', 3, new Date(0));
  const good = Buffer.concat([header, Buffer.from('abc'), Buffer.alloc(509 + 1024)]);
  const bad = Buffer.from(good);
  bad[0] = 0x62;
  const drain = async (b: Buffer) => {
    for await (const e of tarEntries(single(b))) {
      for await (const _ of e.body) void _;
    }
  };
  await expect(drain(good)).resolves.toBeUndefined();
  await expect(drain(bad)).rejects.toThrow(/checksum/);
  await expect(drain(good.subarray(0, 600))).rejects.toThrow(/truncated/);
  expect(() => tarHeader('x'.repeat(100), 1, new Date(0))).toThrow(/unsupported/);
});
