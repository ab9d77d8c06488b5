/**
 * Writes one GridFS file as the GridFS spec lays it out (chunk documents `{files_id, n, data}`,
 * then the files document with its own `chunkSize`, last), but faster than the driver's upload
 * stream on a server that turns each command into queries of its own storage (the embedded
 * store): several chunks per `insertMany` instead of one insert each, and the next batch is read
 * while the previous one is stored (one batch in flight).
 * The chunk buffers are reused once their insert is done (two batches' worth in all): a new buffer
 * per chunk was the APK's size in garbage, which V8 frees only at its next full GC, so the API's
 * memory rose by tens of MiB during each upload (docs/benchmarks.md#upload-ingest).
 * Any reader that follows the spec (the driver's download stream included) reads the result, and
 * reads each file at the chunk size its files document names, so files written before at another
 * chunk size still read. A write that fails or is cut leaves chunks without a files document: an
 * incomplete file that no reader sees (`put` in blob-store.ts removes it before writing again).
 */
import type { Collection, Document, ObjectId } from 'mongodb';

export interface GridFsTarget {
  readonly files: Collection<Document>;
  readonly chunks: Collection<Document>;
}

export interface GridFsWrite {
  readonly id: ObjectId;
  readonly filename: string;
  readonly metadata: Record<string, unknown>;
  readonly chunkSize: number;
  /** How many bytes of chunks go into one `insertMany`. */
  readonly batchBytes: number;
}

interface ChunkDoc {
  files_id: ObjectId;
  n: number;
  data: Buffer;
}

/** Chunk buffers of one size, handed back once nothing reads them any more. */
class ChunkPool {
  private readonly free: Buffer[] = [];

  constructor(private readonly size: number) {}

  take(): Buffer {
    return this.free.pop() ?? Buffer.allocUnsafe(this.size);
  }

  /** The buffers under `batch`'s chunks (the last chunk may be a view of one). */
  giveBack(batch: readonly ChunkDoc[]): void {
    for (const doc of batch)
      this.free.push(Buffer.from(doc.data.buffer, doc.data.byteOffset, this.size));
  }
}

/** Cuts a byte stream into chunk documents, `batchBytes` of them at a time. */
async function* chunkBatches(
  source: AsyncIterable<Buffer>,
  w: GridFsWrite,
  pool: ChunkPool,
): AsyncGenerator<ChunkDoc[]> {
  let batch: ChunkDoc[] = [];
  let chunk = pool.take();
  let fill = 0;
  let n = 0;
  const perBatch = Math.max(1, Math.floor(w.batchBytes / w.chunkSize));
  for await (const piece of source) {
    let from = 0;
    while (from < piece.length) {
      const copied = piece.copy(chunk, fill, from);
      from += copied;
      fill += copied;
      if (fill < w.chunkSize) continue;
      batch.push({ files_id: w.id, n: n++, data: chunk });
      chunk = pool.take();
      fill = 0;
      if (batch.length < perBatch) continue;
      yield batch;
      batch = [];
    }
  }
  if (fill > 0) batch.push({ files_id: w.id, n, data: chunk.subarray(0, fill) });
  if (batch.length > 0) yield batch;
}

/** Stores `source` as GridFS file `w.id`; resolves to its length once the files doc is in. */
export async function writeGridFsFile(
  target: GridFsTarget,
  source: AsyncIterable<Buffer>,
  w: GridFsWrite,
): Promise<number> {
  let length = 0;
  let inFlight: Promise<unknown> = Promise.resolve();
  const pool = new ChunkPool(w.chunkSize);
  try {
    for await (const batch of chunkBatches(source, w, pool)) {
      await inFlight;
      for (const doc of batch) length += doc.data.length;
      // The driver has serialized a batch once its insert is done: its buffers may be refilled.
      inFlight = target.chunks
        .insertMany(batch, { ordered: true })
        .then(() => pool.giveBack(batch));
      // Awaited above or below; until then a failure must not count as unhandled.
      inFlight.catch(() => undefined);
    }
  } finally {
    // Never leave an insert running after a failed read: the caller removes what was written.
    await inFlight.catch(() => undefined);
  }
  await inFlight;
  await target.files.insertOne({
    _id: w.id,
    length,
    chunkSize: w.chunkSize,
    uploadDate: new Date(),
    filename: w.filename,
    metadata: w.metadata,
  });
  return length;
}
