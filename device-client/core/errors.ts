/** Any thrown value as an Error: an Error as it is, anything else wrapped and kept as the cause. */
export function coerceError(value: unknown): Error {
  if (value instanceof Error) return value;
  const text = typeof value === 'string' ? value : `non-Error thrown: ${String(value)}`;
  return new Error(text, { cause: value });
}
