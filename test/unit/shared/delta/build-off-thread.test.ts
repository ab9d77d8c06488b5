/**
 * Patches made on a thread: over a pair of real APKs (aapt, zipalign, apksigner) large enough that
 * one generation takes seconds, the test's own timers keep firing while each format is made, the
 * main thread spends at most a small share of the CPU the generation takes, and the patch is byte
 * for byte what the in-thread builders make. Two generations at once run one thread after the
 * other; an aborted one rejects with the signal's reason and leaves no thread; a thread that
 * throws rejects with DELTA_GENERATION_FAILED naming the pair and format.
 */
import { AppError } from '../../../../shared/errors';
import { buildPatch } from '../../../../shared/delta/build-patch';
import { buildPatch2 } from '../../../../shared/delta/build-patch2';
import {
  buildPatch2OffThread,
  buildPatchOffThread,
  generationThreads,
  offThread,
} from '../../../../shared/delta/build-off-thread';
import { compressedApk } from '../../../helpers/apk/compressed-apk';
import { eventually } from '../../../helpers/eventually';
import { noise, words } from '../../../helpers/delta';

let old: Buffer;
let target: Buffer;
const PAIR = 'acct/dev.apkrelay.thread/old-md5/new-sha256';

beforeAll(async () => {
  const text = words(200_000);
  const bulk = noise(2 << 20, 11);
  const changedBulk = Buffer.concat([
    bulk.subarray(0, 1 << 20),
    noise(4096, 5),
    bulk.subarray(1 << 20),
  ]);
  const changedText = Buffer.concat([
    text.subarray(0, 500_000),
    Buffer.from('A CHANGE'),
    text.subarray(500_000),
  ]);
  old = await compressedApk('dev.apkrelay.thread', 1, { 'data.txt': text, 'bulk.bin': bulk });
  target = await compressedApk('dev.apkrelay.thread', 2, {
    'data.txt': changedText,
    'bulk.bin': changedBulk,
  });
}, 120_000);

const never = () => new AbortController().signal;

/** Counts this thread's timer callbacks that run before `work` settles; its outcome too. */
async function whileRunning<T>(work: Promise<T>, onMarker: () => void = () => {}) {
  let settled = false;
  const outcome = work.finally(() => (settled = true));
  let markers = 0;
  while (!settled) {
    await new Promise((resolve) => setTimeout(resolve, 5));
    if (!settled) {
      markers++;
      onMarker();
    }
  }
  return { value: await outcome, markers };
}

/** Main-thread CPU and whole-process CPU (every thread) spent while `work` ran, in µs. */
async function cpuOf<T>(work: () => Promise<T>) {
  const [main, all] = [process.threadCpuUsage(), process.cpuUsage()];
  const result = await work();
  const [mainAfter, allAfter] = [process.threadCpuUsage(main), process.cpuUsage(all)];
  return {
    result,
    main: mainAfter.user + mainAfter.system,
    all: allAfter.user + allAfter.system,
  };
}

test('ARDELTA1: the event loop answers while the thread makes the same patch', async () => {
  const { result, main, all } = await cpuOf(() =>
    whileRunning(buildPatchOffThread({ pair: PAIR, old, target, signal: never() })),
  );
  expect(result.markers).toBeGreaterThanOrEqual(3);
  expect(main).toBeLessThan(all / 4);
  expect(result.value.equals(buildPatch(old, target))).toBe(true);
  expect(generationThreads()).toBe(0);
});

test('ARDELTA2: the event loop answers while the thread makes the same patch', async () => {
  const { result, main, all } = await cpuOf(() =>
    whileRunning(buildPatch2OffThread({ pair: PAIR, old, target, signal: never() })),
  );
  expect(result.markers).toBeGreaterThanOrEqual(3);
  expect(main).toBeLessThan(all / 4);
  const expected = await buildPatch2(old, target);
  expect(expected?.patch).not.toBeNull();
  expect(result.value?.patch?.equals(expected!.patch!)).toBe(true);
  expect(result.value?.changed).toBe(expected?.changed);
  expect(result.value?.reproduced).toBe(expected?.reproduced);
});

test('two generations at once run one thread after the other', async () => {
  let most = 0;
  const both = Promise.all([
    buildPatchOffThread({ pair: PAIR, old, target, signal: never() }),
    buildPatchOffThread({ pair: PAIR, old: target, target: old, signal: never() }),
  ]);
  const { value, markers } = await whileRunning(both, () => {
    most = Math.max(most, generationThreads());
  });
  expect(markers).toBeGreaterThanOrEqual(3);
  expect(most).toBe(1);
  expect(value[0].equals(buildPatch(old, target))).toBe(true);
  expect(generationThreads()).toBe(0);
});

/** CPU (µs) the process spent since `from` outside this thread: the generation thread's. */
const otherThreadsCpu = (from: { all: NodeJS.CpuUsage; main: NodeJS.CpuUsage }) => {
  const [all, main] = [process.cpuUsage(from.all), process.threadCpuUsage(from.main)];
  return all.user + all.system - (main.user + main.system);
};
const cpuFrom = () => ({ all: process.cpuUsage(), main: process.threadCpuUsage() });

/** The thread CPU of a generation run to its end (µs). */
async function threadCpuOf(build: Promise<unknown>): Promise<number> {
  const from = cpuFrom();
  await build;
  return otherThreadsCpu(from);
}

test('aborting mid-generation terminates the thread and rejects with the reason', async () => {
  const text = Buffer.from('not a zip at all');
  const notZip = { pair: PAIR, old: text, target: text, signal: never() };
  const startup = await threadCpuOf(buildPatch2OffThread(notZip));
  const whole = await threadCpuOf(buildPatch2OffThread({ ...notZip, old, target }));
  const work = whole - startup;
  const abort = new AbortController();
  const reason = new Error('the job budget is spent');
  const from = cpuFrom();
  const outcome = buildPatch2OffThread({ pair: PAIR, old, target, signal: abort.signal }).then(
    () => 'resolved',
    (err: unknown) => err,
  );
  // Past its start-up and a quarter into its work (CPU counted, not the clock).
  await eventually('the thread at work', () => otherThreadsCpu(from) > startup + work / 4, {
    intervalMs: 5,
  });
  abort.abort(reason);
  expect(await outcome).toBe(reason);
  expect(generationThreads()).toBe(0);
  // Terminated, not waited for: the thread stopped well short of the whole generation's CPU.
  expect(otherThreadsCpu(from)).toBeLessThan(startup + 0.6 * work);
});

test('a generation aborted while it waits for its turn rejects at once', async () => {
  const first = buildPatchOffThread({ pair: PAIR, old, target, signal: never() });
  await eventually('the first thread', () => generationThreads() === 1);
  const abort = new AbortController();
  const reason = new Error('closing');
  const second = buildPatchOffThread({ pair: PAIR, old, target, signal: abort.signal });
  const outcome = second.then(
    () => 'resolved',
    (err: unknown) => err,
  );
  let firstDone = false;
  void first.then(() => (firstDone = true));
  abort.abort(reason);
  expect(await outcome).toBe(reason);
  // Rejected while the first still ran: it did not wait for its turn.
  expect(firstDone).toBe(false);
  expect(generationThreads()).toBe(1);
  expect((await first).equals(buildPatch(old, target))).toBe(true);
  expect(generationThreads()).toBe(0);
});

test('an aborted signal starts no thread', async () => {
  const reason = new Error('closing');
  const signal = AbortSignal.abort(reason);
  await expect(buildPatchOffThread({ pair: PAIR, old, target, signal })).rejects.toBe(reason);
  expect(generationThreads()).toBe(0);
});

test('a thread that throws rejects with DELTA_GENERATION_FAILED naming the pair and format', async () => {
  const failure = await offThread({ pair: PAIR, old, target, signal: never() }, 3 as 1).then(
    () => null,
    (err: unknown) => err,
  );
  expect(failure).toBeInstanceOf(AppError);
  expect((failure as AppError).code).toBe('DELTA_GENERATION_FAILED');
  expect((failure as AppError).message).toBe(
    `ARDELTA3 patch ${PAIR}: the generation thread failed: patch thread: unknown patch format 3`,
  );
  expect(generationThreads()).toBe(0);
});

test('malformed archives: no ARDELTA2 for the pair (null), as on the main thread', async () => {
  const text = Buffer.from('not a zip at all');
  const made = await buildPatch2OffThread({
    pair: PAIR,
    old: text,
    target: Buffer.concat([text, Buffer.from('!')]),
    signal: never(),
  });
  expect(made).toBeNull();
  expect(generationThreads()).toBe(0);
});
