/**
 * Tracks the largest single Buffer allocation made while one input runs, by wrapping
 * `Buffer.alloc`, `allocUnsafe` and `allocUnsafeSlow` in the fuzz worker (Buffer.concat and most
 * of Node's own buffer users go through them). A parser that trusts a declared size and
 * allocates it shows up here even when the allocation is freed at once.
 */
export interface AllocationTracker {
  reset(): void;
  largest(): number;
}

let installed: { largest: number } | null = null;

export function allocationTracker(): AllocationTracker {
  if (installed === null) {
    const state = { largest: 0 };
    for (const name of ['alloc', 'allocUnsafe', 'allocUnsafeSlow'] as const) {
      const original = (Buffer[name] as (size: number, ...rest: unknown[]) => Buffer).bind(Buffer);
      const wrapped = (size: number, ...rest: unknown[]): Buffer => {
        if (typeof size === 'number' && size > state.largest) state.largest = size;
        return original(size, ...rest);
      };
      Object.defineProperty(Buffer, name, { value: wrapped, writable: true, configurable: true });
    }
    installed = state;
  }
  const state = installed;
  return {
    reset: () => {
      state.largest = 0;
    },
    largest: () => state.largest,
  };
}
