/**
 * The hand-written access matrix (matrix.tsv) read back: one row per route, the expected outcome
 * per role, and what a reply must or must not carry. Nothing here comes from the route table.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Host } from '../../../api/route-table';
import { ROLES, type Outcome, type Role } from './roles';

export type Shows =
  | '-'
  | 'own-email'
  | 'own-apps'
  | 'a-job'
  | 'a-link'
  | 'a-device'
  | 'a-exception'
  | 'a-sha256'
  | 'a-apk'
  | 'a-screenshot'
  | 'a-stack'
  | 'metrics'
  | 'queues'
  | 'retried';
const SHOWS: readonly Shows[] = [
  '-',
  'own-email',
  'own-apps',
  'a-job',
  'a-link',
  'a-device',
  'a-exception',
  'a-sha256',
  'a-apk',
  'a-screenshot',
  'a-stack',
  'metrics',
  'queues',
  'retried',
];

export interface Row {
  /** `METHOD path`, e.g. `GET /api/v2/apps/:package`. */
  readonly key: string;
  readonly hosts: readonly Host[];
  readonly expected: Readonly<Record<Role, Outcome>>;
  /** What B and the operator get naming A's resource under their own package; undefined: not asked. */
  readonly cross?: Outcome;
  readonly shows: Shows;
  readonly refusedLeaves: '-' | 'board-unchanged';
  /** Who besides A's holders may see A's secrets in a reply. */
  readonly aData: 'hidden' | 'operator';
  readonly why: string;
  /** Line in matrix.tsv, for messages. */
  readonly line: number;
}

export const MATRIX_FILE = path.join(__dirname, 'matrix.tsv');

const CELLS: Readonly<Record<string, Outcome>> = {
  allow: 'allow',
  '401': 'unauthenticated',
  '403': 'forbidden',
  '404': 'notFound',
  '405': 'methodNotAllowed',
};
const COLUMNS = [
  'method',
  'path',
  'hosts',
  ...ROLES,
  'cross',
  'allowed-shows',
  'refused-leaves',
  'a-data',
  'why',
] as const;

function oneOf<T extends string>(value: string, allowed: readonly T[], where: string): T {
  if (!(allowed as readonly string[]).includes(value)) {
    throw new Error(`${where}: ${JSON.stringify(value)} is not one of ${allowed.join(', ')}`);
  }
  return value as T;
}

function cell(value: string, where: string): Outcome {
  const outcome = CELLS[value];
  if (!outcome) throw new Error(`${where}: unknown outcome ${JSON.stringify(value)}`);
  return outcome;
}

function parseRow(fields: readonly string[], line: number): Row {
  const at = (name: (typeof COLUMNS)[number]): string => fields[COLUMNS.indexOf(name)] ?? '';
  const where = `matrix.tsv:${line}`;
  const method = oneOf(at('method'), ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'], where);
  const hosts = at('hosts')
    .split(',')
    .map((h) => oneOf(h, ['admin', 'web', 'push'] as const, where));
  const expected = Object.fromEntries(ROLES.map((r) => [r, cell(at(r), `${where} ${r}`)]));
  return {
    key: `${method} ${at('path')}`,
    hosts,
    expected: expected as Record<Role, Outcome>,
    cross: at('cross') === '-' ? undefined : cell(at('cross'), `${where} cross`),
    shows: oneOf(at('allowed-shows'), SHOWS, where),
    refusedLeaves: oneOf(at('refused-leaves'), ['-', 'board-unchanged'] as const, where),
    aData: oneOf(at('a-data'), ['hidden', 'operator'] as const, where),
    why: at('why'),
    line,
  };
}

/** The rows of matrix.tsv; throws on a malformed line or a repeated route. */
export function readMatrix(file = MATRIX_FILE): Row[] {
  const lines = readFileSync(file, 'utf8').split('\n');
  const rows: Row[] = [];
  let header = false;
  lines.forEach((text, i) => {
    if (text === '' || text.startsWith('#')) return;
    const fields = text.split('\t');
    if (!header) {
      if (fields.join('\t') !== COLUMNS.join('\t')) {
        throw new Error(`matrix.tsv:${i + 1}: header must be ${COLUMNS.join(' ')}`);
      }
      header = true;
      return;
    }
    if (fields.length !== COLUMNS.length || fields.some((f) => f === '')) {
      throw new Error(`matrix.tsv:${i + 1}: ${COLUMNS.length} non-empty fields expected`);
    }
    rows.push(parseRow(fields, i + 1));
  });
  const keys = rows.map((r) => r.key);
  const repeated = keys.filter((k, i) => keys.indexOf(k) !== i);
  if (repeated.length > 0) throw new Error(`matrix.tsv: routes repeated: ${repeated.join(', ')}`);
  return rows;
}
