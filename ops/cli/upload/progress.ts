/**
 * Progress bars for uploads (cli-progress) on a terminal: one bar per file (a MultiBar when there
 * are several), bytes sent of the total and the speed, then what the file is waiting for. When
 * the output is not a terminal, or --json is on, every method does nothing.
 */
import { MultiBar, SingleBar, type Options, type Params } from 'cli-progress';
import path from 'node:path';
import type { UploadEvents, UploadResult } from './upload-file';

export interface FileProgress extends UploadEvents {
  finish(result: UploadResult): void;
}

export interface ProgressView {
  track(file: string): FileProgress;
  stop(): void;
}

interface Payload {
  name: string;
  state: string;
  startedAt: number;
  /** When the last byte was sent: the speed shown stops there. */
  sentAt?: number;
}

const MB = 1024 * 1024;
const BAR_WIDTH = 20;
const NAME_WIDTH = 20;

function render(_options: Options, params: Params, payload: Payload): string {
  const ratio = params.total > 0 ? Math.min(1, params.value / params.total) : 0;
  const filled = Math.round(ratio * BAR_WIDTH);
  const seconds = Math.max(0.001, ((payload.sentAt ?? Date.now()) - payload.startedAt) / 1000);
  const speed = params.value / MB / seconds;
  const name =
    payload.name.length > NAME_WIDTH
      ? `…${payload.name.slice(1 - NAME_WIDTH)}`
      : payload.name.padEnd(NAME_WIDTH);
  return (
    `${name} ${'█'.repeat(filled)}${'░'.repeat(BAR_WIDTH - filled)} ` +
    `${String(Math.round(ratio * 100)).padStart(3)}% ` +
    `${(params.value / MB).toFixed(1)}/${(params.total / MB).toFixed(1)} MB ` +
    `${speed.toFixed(1)} MB/s ${payload.state}`
  );
}

const NOOP: ProgressView = {
  track: () => ({ finish: () => undefined }),
  stop: () => undefined,
};

export function progressView(
  enabled: boolean,
  fileCount: number,
  stream: NodeJS.WriteStream,
): ProgressView {
  if (!enabled) return NOOP;
  const options: Options = {
    format: render,
    stream,
    fps: 8,
    hideCursor: true,
    clearOnComplete: false,
    stopOnComplete: false,
  };
  const multi = fileCount > 1 ? new MultiBar(options) : null;
  const bars: SingleBar[] = [];
  return {
    track(file) {
      const payload: Payload = {
        name: path.basename(file),
        state: 'queued',
        startedAt: Date.now(),
      };
      let bar: SingleBar | null = null;
      let sent = 0;
      let total = 0;
      const set = (state: string) => {
        payload.state = state;
        bar?.update(sent, payload);
      };
      return {
        onStart(size) {
          sent = 0;
          total = size;
          payload.startedAt = Date.now();
          delete payload.sentAt;
          payload.state = 'sending';
          if (!bar) {
            bar = multi ? multi.create(size, 0, payload) : new SingleBar(options);
            if (!multi) bar.start(size, 0, payload);
            bars.push(bar);
          }
          bar.update(0, payload);
        },
        onBytes(n) {
          sent += n;
          if (sent >= total) {
            payload.sentAt = Date.now();
            payload.state = 'verifying';
          }
          bar?.update(sent, payload);
        },
        onPhase(phase) {
          set(phase === 'polling' ? 'verifying' : 'server busy, retrying');
        },
        finish(result) {
          set(result.ok ? 'done' : 'failed');
        },
      };
    },
    stop() {
      if (multi) multi.stop();
      else for (const bar of bars) bar.stop();
    },
  };
}
