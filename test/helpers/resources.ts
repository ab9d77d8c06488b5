/**
 * Registry of resources a test opened. `track` returns the closer to use instead of the raw one;
 * the leak-guard environment fails the file if anything tracked is still open at its end.
 */
type Registry = Map<number, string>;
const g = globalThis as { __apkrelayOpenResources?: Registry };
const registry: Registry = (g.__apkrelayOpenResources ??= new Map<number, string>());
let next = 0;

export function track(label: string, close: () => Promise<void>): () => Promise<void> {
  const id = next++;
  registry.set(id, label);
  let closing: Promise<void> | undefined;
  return () =>
    (closing ??= close().finally(() => {
      registry.delete(id);
    }));
}

export function openResources(): string[] {
  return [...registry.values()];
}
