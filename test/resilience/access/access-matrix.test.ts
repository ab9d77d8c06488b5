/**
 * Issue 11, access control: for every route of the route table on every host it is mounted on,
 * every role (anonymous, a device of A, A's owner, B's owner, an operator, a metrics scraper) and
 * every resource of A the route can address, a real request to the real stack, read as allow or
 * as a denial, against the expectation generated from the route's declared access and the
 * entries of expectations.ts. Routes are also requested on the hosts they are not mounted on.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Host, Method, Route } from '../../../api/route-table';
import { routeTable } from '../../helpers/route-table';
import { recordFigures } from '../report';
import { EXPECTATIONS, EXTRA_MOUNTS, type CaseContext, type Entry } from './expectations';
import { jsonJudge, send, type Verdict } from './judge';
import { accountOf, defaultOutcomes, ROLES, type Outcome, type Role } from './roles';
import { buildWorld, type World } from './world';

jest.setTimeout(600_000);

const HOSTS: readonly Host[] = ['admin', 'web', 'push'];
const keyOf = (r: { method: Method; path: string }) => `${r.method.toUpperCase()} ${r.path}`;

interface Mounted {
  readonly key: string;
  readonly method: Method;
  readonly hosts: readonly Host[];
  readonly access: Route['access'] | 'operator';
}

function mounted(): Mounted[] {
  return [...routeTable(), ...EXTRA_MOUNTS].map((r) => ({
    key: keyOf(r),
    method: r.method,
    hosts: r.hosts,
    access: r.access,
  }));
}

interface Case {
  readonly label: string;
  readonly route: Mounted;
  readonly entry: Entry;
  readonly host: Host;
  readonly role: Role;
  readonly cross: boolean;
  readonly expected: Outcome;
}

function cases(): Case[] {
  const all: Case[] = [];
  for (const route of mounted()) {
    const entry = EXPECTATIONS[route.key];
    if (!entry) continue;
    const outcomes = { ...defaultOutcomes(route.access, route.method), ...entry.overrides };
    for (const host of route.hosts) {
      for (const role of ROLES) {
        const base = { route, entry, host, role, expected: outcomes[role] };
        all.push({ ...base, cross: false, label: `${route.key} @${host} as ${role}` });
        // A's resource under the caller's own package (B and the operator own one).
        if (entry.crossPackage && (role === 'ownerB' || role === 'operator')) {
          all.push({
            ...base,
            cross: true,
            expected: 'notFound',
            label: `${route.key} @${host} as ${role}, A's resource under its own package`,
          });
        }
      }
    }
  }
  return all.sort((x, y) => (x.entry.last ?? 0) - (y.entry.last ?? 0));
}

/** Values only A (and A's devices) may ever see. */
function secretsOfA(w: World): Record<string, string> {
  return {
    'A’s API key': w.a.apiKey,
    'A’s device id': w.a.deviceId,
    'A’s exception id': w.a.exceptionId,
    'A’s download link id': w.a.linkId,
    'A’s upload job id': w.a.jobId,
    'A’s APK sha256': w.a.sha256,
  };
}

test('every mounted route has an entry in the matrix, and every entry a route', () => {
  const routes = new Set(mounted().map((r) => r.key));
  const entries = new Set(Object.keys(EXPECTATIONS));
  expect([...routes].filter((k) => !entries.has(k))).toEqual([]);
  expect([...entries].filter((k) => !routes.has(k))).toEqual([]);
  // Overrides are the exception, each with its reason.
  for (const [key, entry] of Object.entries(EXPECTATIONS)) {
    if (entry.overrides) expect({ key, why: entry.why ?? null }).not.toEqual({ key, why: null });
  }
});

describe('against the real stack', () => {
  let w: World;
  beforeAll(async () => {
    w = await buildWorld();
  }, 300_000);
  afterAll(() => w?.stack.close());

  test('the access matrix: no unexpected allow, no unexpected deny', async () => {
    const urls: Record<Host, string> = w.stack.urls;
    const secrets = secretsOfA(w);
    const unexpectedAllows: string[] = [];
    const unexpectedDenies: string[] = [];
    const wrongDenials: string[] = [];
    const tally: Record<Role, Record<Outcome, number>> = Object.fromEntries(
      ROLES.map((r) => [r, { allow: 0, unauthenticated: 0, forbidden: 0, notFound: 0 }]),
    ) as never;
    let checks = 0;
    const rows: string[] = ['route\thost\trole\tvariant\texpected\tgot\treply'];

    for (const c of cases()) {
      const own = accountOf(w, c.role);
      const ctx: CaseContext = {
        w,
        role: c.role,
        host: c.host,
        pkg: c.cross && own ? own.package : w.a.package,
      };
      const reply = await send(urls[c.host], w.stack.ca, await c.entry.call(ctx));
      let verdict: Verdict = c.entry.judge(reply);
      let note = `${reply.status} ${reply.text.slice(0, 120).replace(/\s+/g, ' ')}`;
      if (c.role !== 'ownerA' && c.role !== 'device' && c.role !== 'forgedForm') {
        const leaked = Object.entries(secrets).find(([, v]) => reply.text.includes(v));
        if (leaked) {
          verdict = 'allow';
          note = `leaks ${leaked[0]}; ${note}`;
        }
      }
      checks += 1;
      rows.push(
        [
          c.route.key,
          c.host,
          c.role,
          c.cross ? 'own package' : 'A',
          c.expected,
          verdict,
          note,
        ].join('\t'),
      );
      if (verdict !== 'unclassified') tally[c.role][verdict] += 1;
      const line = `${c.label}: expected ${c.expected}, got ${verdict} (${note})`;
      if (verdict === c.expected) continue;
      if (verdict === 'allow') unexpectedAllows.push(line);
      else if (c.expected === 'allow') unexpectedDenies.push(line);
      else wrongDenials.push(line);
    }

    // Not mounted on a host: nobody gets it there (asked with A's owner's credentials).
    for (const route of mounted()) {
      const entry = EXPECTATIONS[route.key];
      if (!entry) continue;
      for (const host of HOSTS.filter((h) => !route.hosts.includes(h))) {
        const ctx: CaseContext = { w, role: 'ownerA', host, pkg: w.a.package };
        const reply = await send(urls[host], w.stack.ca, await entry.call(ctx));
        checks += 1;
        const got = jsonJudge(reply);
        const note = `${reply.status} ${reply.text.slice(0, 120).replace(/\s+/g, ' ')}`;
        rows.push([route.key, host, 'ownerA', 'not mounted', 'notFound', got, note].join('\t'));
        if (got !== 'notFound') {
          unexpectedAllows.push(
            `${route.key} @${host} (not mounted there): got ${reply.status} ${reply.text.slice(0, 80)}`,
          );
        }
      }
    }

    // The whole matrix, for people: test-output/access-matrix.tsv (not committed).
    const out = path.resolve(__dirname, '../../../test-output');
    mkdirSync(out, { recursive: true });
    writeFileSync(path.join(out, 'access-matrix.tsv'), `${rows.join('\n')}\n`);
    recordFigures('access', {
      accessChecks: checks,
      unexpectedAllows: unexpectedAllows.length,
      unexpectedDenies: unexpectedDenies.length,
    });
    expect({ unexpectedAllows, unexpectedDenies, wrongDenials }).toEqual({
      unexpectedAllows: [],
      unexpectedDenies: [],
      wrongDenials: [],
    });
    // The matrix says something: every role was both allowed and refused somewhere, and every
    // kind of denial was seen.
    for (const role of ROLES) {
      expect({ role, allowed: tally[role].allow > 0 }).toEqual({ role, allowed: true });
      const refused = tally[role].unauthenticated + tally[role].forbidden + tally[role].notFound;
      expect({ role, refused: refused > 0 }).toEqual({ role, refused: true });
    }
    const seen = (o: Outcome) => ROLES.some((r) => tally[r][o] > 0);
    expect(['unauthenticated', 'forbidden', 'notFound'].filter((o) => !seen(o as Outcome))).toEqual(
      [],
    );
    expect(checks).toBeGreaterThan(300);
  });
});
