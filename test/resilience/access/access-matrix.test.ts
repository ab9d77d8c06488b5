/**
 * Issue 11 and 24, access control: for every route of the route table and of the queue board, on
 * every host it is mounted on, every role (anonymous, a device of A, A's owner, B's owner, an
 * operator, a metrics scraper, a forged cross-site form, A's keys and tokens, A's admin, developer
 * and viewer), a real request to the real stack, read
 * as allow or as a kind of denial and judged against matrix.tsv, which is written by hand: the
 * routes' declared `access` is never read. A reply is judged beyond its status: an allowed one
 * must carry what its row names, no reply may carry A's secrets to others, and a refused board
 * write must leave the queues as they were. Routes are also asked on the hosts they are not on.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Host } from '../../../api/route-table';
import { QUEUES } from '../../../shared/queues/index';
import type { Reply } from '../../helpers/http';
import { routeTable } from '../../helpers/route-table';
import { recordFigures } from '../report';
import { AUDIT_EXPECTATIONS, auditProblem } from './audit-expectations';
import { boardEntries, boardRoutes, boardState } from './board';
import { EXPECTATIONS, type CaseContext, type Entry } from './expectations';
import { TEAM_EXPECTATIONS } from './expectations-teams';
import { WEBHOOK_EXPECTATIONS } from './expectations-webhooks';
import { jsonJudge, send, type Verdict } from './judge';
import { accountOf, MEMBER_ROLES, ROLES, type Outcome, type Role } from './roles';
import { readMatrix, type Row, type Shows } from './table';
import { buildWorld, SCREENSHOT, type World } from './world';

jest.setTimeout(600_000);

const HOSTS: readonly Host[] = ['admin', 'web', 'push'];
const ENTRIES: Readonly<Record<string, Entry>> = {
  ...EXPECTATIONS,
  ...WEBHOOK_EXPECTATIONS,
  ...TEAM_EXPECTATIONS,
  ...boardEntries(),
};
const ROWS = readMatrix();
/** Roles that hold A's credentials: A's data is theirs to see. */
const HOLDERS_OF_A: readonly Role[] = [
  'ownerA',
  'device',
  'forgedForm',
  'deviceKey',
  'ciToken',
  'ciOther',
];

/** Every route served, `METHOD path` to its hosts: the route table's and the board's. */
function served(): Map<string, readonly Host[]> {
  const out = new Map<string, readonly Host[]>();
  for (const r of routeTable()) out.set(`${r.method.toUpperCase()} ${r.path}`, r.hosts);
  for (const key of boardRoutes()) out.set(key, ['admin']);
  return out;
}

interface Case {
  readonly row: Row;
  readonly entry: Entry;
  readonly host: Host;
  readonly role: Role;
  readonly cross: boolean;
  readonly expected: Outcome;
}

function cases(): Case[] {
  const all: Case[] = [];
  for (const row of ROWS) {
    const entry = ENTRIES[row.key];
    if (!entry) throw new Error(`${row.key}: no entry says how to ask it`);
    for (const host of row.hosts) {
      for (const role of ROLES) {
        all.push({ row, entry, host, role, cross: false, expected: row.expected[role] });
        // A's resource under the caller's own package (B and the operator own one).
        if (row.cross && (role === 'ownerB' || role === 'operator')) {
          all.push({ row, entry, host, role, cross: true, expected: row.cross });
        }
      }
    }
  }
  return all.sort((x, y) => (x.entry.last ?? 0) - (y.entry.last ?? 0));
}

const label = (c: Case) =>
  `${c.row.key} @${c.host} as ${c.role}${c.cross ? ", A's resource under its own package" : ''}`;

/** A's keys and tokens: its team members never see them either (docs/teams.md). */
function keysOfA(w: World): Record<string, string> {
  return {
    'A’s API key': w.a.apiKey,
    'A’s device key': w.a.deviceKey,
    'A’s CI token': w.a.ciToken,
    'A’s other CI token': w.a.ciOther,
  };
}

/** Values only A's holders may ever see. */
function secretsOfA(w: World): Record<string, string> {
  return {
    ...keysOfA(w),
    'A’s device id': w.a.deviceId,
    'A’s exception id': w.a.exceptionId,
    'A’s download link id': w.a.linkId,
    'A’s upload job id': w.a.jobId,
    'A’s APK sha256': w.a.sha256,
  };
}

/** Whether an allowed reply carries what the row says it must (matrix.tsv, allowed-shows). */
function carries(shows: Shows, reply: Reply, w: World, role: Role): boolean {
  const own = accountOf(w, role) ?? w.a;
  const has = (s: string) => reply.text.includes(s);
  switch (shows) {
    case '-':
      return true;
    case 'own-email':
      return has(own.email);
    case 'own-apps':
      return has(own.package) && (own.package === w.a.package || !has(w.a.package));
    case 'a-job':
      return has(w.a.jobId);
    case 'a-link':
      return has(w.a.linkId);
    case 'a-device':
      return has(w.a.deviceId);
    case 'a-exception':
      return has(w.a.exceptionId);
    case 'a-sha256':
      return has(w.a.sha256);
    case 'a-apk':
      return createHash('sha256').update(reply.body).digest('hex') === w.a.sha256;
    case 'a-screenshot':
      return reply.body.equals(SCREENSHOT);
    case 'a-stack':
      return has('IllegalStateException: access matrix');
    case 'metrics':
      return /^# TYPE apkrelay_/m.test(reply.text);
    case 'queues':
      return QUEUES.every((q) => has(`"${q.name}"`));
    case 'retried':
      return (reply.json<{ retried?: number }>().retried ?? 0) >= 1;
  }
}

interface Judged {
  readonly verdict: Verdict;
  readonly note: string;
  /** What the reply did that no cell allows (a leak of A's secrets, a board change). */
  readonly breach?: string;
  /** What the request added to the audit log, when its route changes state; else undefined. */
  readonly audit?: string | null;
}

/** Audit entries by people and keys (the system's come from workers, at their own pace). */
const byCallers = { 'actor.kind': { $ne: 'system' } };

/** The actions the request `send` added to the audit log, oldest first. */
async function auditAdded(w: World, send: () => Promise<Reply>) {
  const log = w.stack.mongo.db.collection('audit_log');
  const before = await log.countDocuments(byCallers);
  const reply = await send();
  const count = (await log.countDocuments(byCallers)) - before;
  const added =
    count <= 0
      ? []
      : (await log.find(byCallers).sort({ _id: -1 }).limit(count).toArray())
          .reverse()
          .map((e) => String(e.action));
  return { reply, added };
}

/** The case's request, and its reply read: status, content, leaks, and what a refusal left. */
async function run(c: Case, w: World, board: { first?: string }): Promise<Judged> {
  const own = accountOf(w, c.role);
  const ctx: CaseContext = {
    w,
    role: c.role,
    host: c.host,
    pkg: c.cross && own ? own.package : w.a.package,
  };
  // Writes the board refuses, and the retries it allows, leave the checked state as it was.
  const writesBoard = c.row.refusedLeaves === 'board-unchanged';
  const before = writesBoard ? await boardState(w) : undefined;
  board.first ??= before;
  const call = await c.entry.call(ctx);
  const expectedAudit = AUDIT_EXPECTATIONS[c.row.key];
  const { reply, added } = await auditAdded(w, () => send(w.stack.urls[c.host], w.stack.ca, call));
  const note = `${reply.status} ${reply.text.slice(0, 120).replace(/\s+/g, ' ')}`;
  const verdict = c.entry.judge(reply);
  const outcome = { allowed: verdict === 'allow', status: reply.status };
  const audit = expectedAudit ? auditProblem(expectedAudit, outcome, added) : undefined;
  const seesA =
    HOLDERS_OF_A.includes(c.role) || (c.row.aData === 'operator' && c.role === 'operator');
  // A's members read A's data, never its keys; everyone else neither.
  const secrets = MEMBER_ROLES.includes(c.role) ? keysOfA(w) : secretsOfA(w);
  const leaked = seesA
    ? undefined
    : Object.entries(secrets).find(([, v]) => reply.text.includes(v));
  // A leak or a board change fails the case whatever its cell expects (allowed cells included).
  if (leaked) return { verdict, note, breach: `leaks ${leaked[0]}`, audit };
  if (before !== undefined && (await boardState(w)) !== before) {
    return { verdict, note, breach: 'the queues changed', audit };
  }
  if (verdict === 'allow' && !c.cross && !carries(c.row.shows, reply, w, c.role)) {
    return { verdict: 'unclassified', note: `allowed, but without ${c.row.shows}; ${note}`, audit };
  }
  return { verdict, note, audit };
}

test('matrix.tsv has a row for every route served, on its hosts, and a route for every row', () => {
  const routes = served();
  const rows = new Map(ROWS.map((r) => [r.key, r]));
  const sorted = (hosts: readonly Host[]) => [...hosts].sort().join(',');
  expect({
    routesWithoutRow: [...routes.keys()].filter((k) => !rows.has(k)),
    rowsWithoutRoute: [...rows.keys()].filter((k) => !routes.has(k)),
    otherHosts: ROWS.filter((r) => routes.has(r.key))
      .filter((r) => sorted(r.hosts) !== sorted(routes.get(r.key) ?? []))
      .map((r) => `matrix.tsv:${r.line} ${r.key}: ${sorted(routes.get(r.key) ?? [])}`),
    rowsNotAsked: ROWS.filter((r) => !ENTRIES[r.key]).map((r) => r.key),
    askedWithoutRow: Object.keys(ENTRIES).filter((k) => !rows.has(k)),
    rowsWithoutReason: ROWS.filter((r) => r.why.length < 3).map((r) => r.key),
    // Issue 31: every route that is not a GET says what it writes to the audit log.
    changesWithoutAudit: routeTable()
      .map((r) => `${r.method.toUpperCase()} ${r.path}`)
      .filter((k) => !k.startsWith('GET ') && !AUDIT_EXPECTATIONS[k]),
    auditWithoutRoute: Object.keys(AUDIT_EXPECTATIONS).filter((k) => !routes.has(k)),
  }).toEqual({
    routesWithoutRow: [],
    rowsWithoutRoute: [],
    otherHosts: [],
    rowsNotAsked: [],
    askedWithoutRow: [],
    rowsWithoutReason: [],
    changesWithoutAudit: [],
    auditWithoutRoute: [],
  });
});

type Tally = Record<Role, Record<Outcome, number>>;

/** The matrix says something: every role allowed and refused somewhere, every denial seen. */
function expectTallyMeaningful(tally: Tally): void {
  for (const role of ROLES) {
    expect({ role, allowed: tally[role].allow > 0 }).toEqual({ role, allowed: true });
    const refused = Object.entries(tally[role]).filter(([o]) => o !== 'allow');
    expect({ role, refused: refused.some(([, n]) => n > 0) }).toEqual({ role, refused: true });
  }
  const denials: Outcome[] = ['unauthenticated', 'forbidden', 'notFound', 'methodNotAllowed'];
  expect(denials.filter((o) => !ROLES.some((r) => tally[r][o] > 0))).toEqual([]);
}

describe('against the real stack', () => {
  let w: World;
  beforeAll(async () => {
    w = await buildWorld();
  }, 300_000);
  afterAll(() => w?.close());

  test('the access matrix: every cell of matrix.tsv, judged on the real stack', async () => {
    const failures: string[] = [];
    const tally = Object.fromEntries(
      ROLES.map((r) => [
        r,
        { allow: 0, unauthenticated: 0, forbidden: 0, notFound: 0, methodNotAllowed: 0 },
      ]),
    ) as Tally;
    const rows: string[] = ['route\thost\trole\tvariant\texpected\tgot\treply'];
    const board: { first?: string } = {};
    const breaches: string[] = [];
    for (const c of cases()) {
      const { verdict, note, breach, audit } = await run(c, w, board);
      if (audit) failures.push(`${label(c)} (audit-expectations.ts): ${audit} (${note})`);
      const variant = c.cross ? 'own package' : 'A';
      const got = breach ? `${verdict}, ${breach}` : verdict;
      rows.push([c.row.key, c.host, c.role, variant, c.expected, got, note].join('\t'));
      if (verdict !== 'unclassified') tally[c.role][verdict] += 1;
      if (breach) {
        breaches.push(`${label(c)} (matrix.tsv:${c.row.line}): ${breach} (${verdict}; ${note})`);
      } else if (verdict !== c.expected) {
        failures.push(
          `${label(c)} (matrix.tsv:${c.row.line}): expected ${c.expected}, got ${verdict} (${note})`,
        );
      }
    }

    // Not mounted on a host: nobody gets it there (asked with A's owner's credentials).
    for (const row of ROWS) {
      for (const host of HOSTS.filter((h) => !row.hosts.includes(h))) {
        const ctx: CaseContext = { w, role: 'ownerA', host, pkg: w.a.package };
        const reply = await send(w.stack.urls[host], w.stack.ca, await ENTRIES[row.key]!.call(ctx));
        const got = jsonJudge(reply);
        const note = `${reply.status} ${reply.text.slice(0, 120).replace(/\s+/g, ' ')}`;
        rows.push([row.key, host, 'ownerA', 'not mounted', 'notFound', got, note].join('\t'));
        if (got !== 'notFound') failures.push(`${row.key} @${host} (not mounted there): ${note}`);
      }
    }

    // The whole matrix as run, for people: test-output/access-matrix.tsv (not committed).
    const out = path.resolve(__dirname, '../../../test-output');
    mkdirSync(out, { recursive: true });
    writeFileSync(path.join(out, 'access-matrix.tsv'), `${rows.join('\n')}\n`);
    recordFigures('access', {
      accessChecks: rows.length - 1,
      // A leak or a board change gave a caller what its cell does not: an unexpected allow.
      unexpectedAllows: failures.filter((f) => /got allow/.test(f)).length + breaches.length,
      unexpectedDenies: failures.filter((f) => /expected allow/.test(f)).length,
    });
    expect({ breaches, failures }).toEqual({ breaches: [], failures: [] });
    // The board's state check had something to lose: A's job was there before the writes.
    expect(board.first).toMatch(/"jobOfA":\{"data"/);
    expectTallyMeaningful(tally);
    expect(rows.length - 1).toBeGreaterThan(600);
  });
});
