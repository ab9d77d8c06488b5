/**
 * The Rollouts tab's start form, read into the body the JSON API takes
 * (`POST /api/v2/apps/{package}/rollout`), so both go through the same validation
 * (shared/rollouts/actions.ts). Only the text is split here; nothing is judged.
 */

const text = (value: unknown): string => (typeof value === 'string' ? value.trim() : '');

/** Comma- (or, for ids, whitespace-) separated entries, blanks dropped. */
const list = (value: unknown, separator: RegExp): string[] =>
  text(value)
    .split(separator)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);

/** A stage as typed: a number when it reads as one, else the text (the validation refuses it). */
const stage = (s: string): number | string => (/^\d+(\.\d+)?$/.test(s) ? Number(s) : s);

export interface RolloutForm {
  readonly sha256: unknown;
  readonly stages?: unknown;
  readonly targeting?: unknown;
}

/**
 * Form fields: `sha256`, `stages` ("1, 5, 25, 100"; empty: the default), `metadataKey` and
 * `metadataValues` ("north, south"), `deviceIds` (one per line, or separated by spaces or commas).
 */
export function rolloutFormBody(form: Record<string, unknown>): RolloutForm {
  const stages = list(form.stages, /,/);
  const key = text(form.metadataKey);
  const deviceIds = list(form.deviceIds, /[\s,]+/);
  const metadata = key ? { key, values: list(form.metadataValues, /,/) } : null;
  const targeting =
    metadata || deviceIds.length > 0
      ? { ...(metadata ? { metadata } : {}), ...(deviceIds.length > 0 ? { deviceIds } : {}) }
      : undefined;
  return {
    sha256: form.sha256,
    ...(stages.length > 0 ? { stages: stages.map(stage) } : {}),
    ...(targeting ? { targeting } : {}),
  };
}
