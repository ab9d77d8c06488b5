/**
 * Figures for `npm run test:resilience -- --report`. Each test adds what it did (inputs fuzzed,
 * faults injected, access checks run, ...) to a JSON-lines file named by the runner; the runner
 * sums them when jest is done. Outside the runner (a plain `npx jest` of one file) nothing is
 * written.
 */
import { appendFileSync } from 'node:fs';

export interface ResilienceFigures {
  /** Parser inputs fed to the ZIP reader, AXML reader and signature verifier. */
  inputsFuzzed?: number;
  /** Inputs that threw something other than the parsers' own verdicts, or broke the memory bound. */
  crashes?: number;
  /** Inputs that outlived the per-input time bound. */
  hangs?: number;
  /** Inputs a fuzz oracle says must be refused that the parser accepted (must be 0). */
  wrongVerdicts?: number;
  /** Hostile requests sent (malformed multipart, slow senders, oversized forms, ...). */
  abuseCases?: number;
  /** Redis restarts, Mongo stops, full disks. */
  faultsInjected?: number;
  /** Uploads and exception reports the service acknowledged while faults were injected. */
  acknowledgedItems?: number;
  /** Of those, how many never completed after recovery (must be 0). */
  acknowledgedLost?: number;
  /** (route, role, resource) cases of the access matrix. */
  accessChecks?: number;
  /** Cases the matrix expected to be denied that were allowed (must be 0). */
  unexpectedAllows?: number;
  /** Cases the matrix expected to be allowed that were denied. */
  unexpectedDenies?: number;
}

export const REPORT_FILE_VARIABLE = 'APKRELAY_RESILIENCE_REPORT';

export function recordFigures(section: string, figures: ResilienceFigures): void {
  // The runner passes the report file to jest's workers through their environment; this is test
  // code, not the service, so the config module's rule does not apply.
  const file = process.env[REPORT_FILE_VARIABLE];
  if (!file) return;
  appendFileSync(file, `${JSON.stringify({ section, ...figures })}\n`);
}
