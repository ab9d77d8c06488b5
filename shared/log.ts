/**
 * Structured JSON logs (pino). Secrets never reach a log line: known secret-bearing fields are
 * redacted wherever they appear, and callers log identifiers (account id, job id), never keys.
 */
import pino, { type Logger } from 'pino';

export type { Logger };

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

const SECRET_FIELDS = [
  'apiKey',
  'api_key',
  'password',
  'masterKey',
  'dataKey',
  'token',
  'authorization',
  'cookie',
];

export const REDACT_PATHS = [
  ...SECRET_FIELDS,
  ...SECRET_FIELDS.map((f) => `*.${f}`),
  'req.headers.authorization',
  'req.headers.cookie',
  'req.query.api_key',
  'req.query.apiKey',
];

export function createLogger(
  level: LogLevel,
  bindings: Record<string, unknown> = {},
  destination?: pino.DestinationStream,
): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { pid: process.pid, ...bindings },
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  return destination ? pino(options, destination) : pino(options);
}
