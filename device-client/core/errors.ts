/**
 * Any thrown value as an Error: an Error as it is, anything else wrapped and kept as the cause.
 * An Error of another realm (a vm context, as test runners use; the runtime's own fetch) fails
 * `instanceof Error` but is one: its brand says so, and it is not wrapped into "non-Error thrown".
 */
export function coerceError(value: unknown): Error {
  if (value instanceof Error || Object.prototype.toString.call(value) === '[object Error]') {
    return value as Error;
  }
  const text = typeof value === 'string' ? value : `non-Error thrown: ${String(value)}`;
  return new Error(text, { cause: value });
}
