/** The bench's reading of the API's heap from Prometheus text (literal exposition lines). */
import { parseApiMemory, perConnection } from '../../../../../ops/bench/lib/api-memory';

const TEXT = [
  '# HELP apkrelay_nodejs_heap_size_total_bytes Process heap size from Node.js in bytes.',
  '# TYPE apkrelay_nodejs_heap_size_total_bytes gauge',
  'apkrelay_nodejs_heap_size_total_bytes 73400320',
  'apkrelay_nodejs_heap_size_used_bytes 51200000',
  'apkrelay_nodejs_heap_space_size_used_bytes{space="new"} 1048576',
  'apkrelay_nodejs_external_memory_bytes 2048000',
  'apkrelay_nodejs_array_buffers_bytes 1536000',
  'apkrelay_process_resident_memory_bytes 160432128',
  'apkrelay_push_streams_open 10',
].join('\n');

test('reads heap used and reserved, external, array buffers and RSS, not the per-space lines', () => {
  expect(parseApiMemory(TEXT)).toEqual({
    heapUsed: 51_200_000,
    heapTotal: 73_400_320,
    external: 2_048_000,
    arrayBuffers: 1_536_000,
    rss: 160_432_128,
  });
});

test('a gauge that is absent reads NaN', () => {
  expect(parseApiMemory('apkrelay_push_streams_open 1\n').heapUsed).toBeNaN();
});

test('per connection: the growth divided by the connections', () => {
  const before = {
    heapUsed: 1_000,
    heapTotal: 2_000,
    external: 300,
    arrayBuffers: 100,
    rss: 9_000,
  };
  const idle = {
    heapUsed: 11_000,
    heapTotal: 4_000,
    external: 300,
    arrayBuffers: 600,
    rss: 19_000,
  };
  expect(perConnection(before, idle, 10)).toEqual({
    heapUsed: 1_000,
    heapTotal: 200,
    external: 0,
    arrayBuffers: 50,
    rss: 1_000,
  });
});
