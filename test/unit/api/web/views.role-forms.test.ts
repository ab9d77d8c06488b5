/**
 * Pages show each role only the forms it may send (docs/teams.md): the expected forms per role are
 * written by hand from the page routes' needs (api/web/routes.ts, the roles table of
 * docs/teams.md), not read from shared/accounts/principal.ts.
 */
import { ObjectId } from 'mongodb';
import type { MemberRole } from '../../../../shared/accounts/principal';
import type { AppDoc } from '../../../../shared/catalog/types';
import { keysSection } from '../../../../api/accounts/key-views';
import { apksTab } from '../../../../api/apps/web-views';
import { installationsTab } from '../../../../api/devices/web-views';
import { rolloutsTab } from '../../../../api/rollouts/web-views';
import { membersPage } from '../../../../api/accounts/team-views';
import { appsPage, type Viewer } from '../../../../api/web/views';
import { endpointPage, webhooksPage } from '../../../../api/webhooks/web-views';
import type { DeliveryDoc, EndpointDoc } from '../../../../shared/webhooks/types';
import { ANY_LISTING, apkDoc, installationRow, viewerAs } from '../../../helpers/web-views';

const PKG = 'dev.apkrelay.sample';
const current = new ObjectId();
const app = { _id: new ObjectId(), accountId: 'a1', package: PKG, currentApkId: current } as AppDoc;
const apk = apkDoc;
const apks = [apk(new ObjectId(), 2), apk(current, 1)];
const installation = installationRow('d1');
const otherOwner = { id: 'm2', accountId: 'a1', email: 'o2@example.com', role: 'owner' as const };
const developer = {
  id: 'm3',
  accountId: 'a1',
  email: 'dev@example.com',
  role: 'developer' as const,
};
const since = new Date('2026-11-25T12:00:00Z');
const HOOK = 'e0000000000000000000000e';
const DELIVERY = 'd0000000000000000000000d';
const endpoint = {
  _id: new ObjectId(HOOK),
  url: 'https://hooks.example.com/x',
  events: ['apk.accepted'],
  enabled: true,
  disabledReason: null,
  failingSince: null,
  createdAt: since,
} as unknown as EndpointDoc;
const delivery = {
  _id: new ObjectId(DELIVERY),
  endpointId: endpoint._id,
  event: 'apk.accepted',
  state: 'delivered',
  attempts: [],
  createdAt: since,
} as unknown as DeliveryDoc;
const EMPTY_INPUT = { url: '', events: [], enabled: true };

/** Every page a signed-in user reaches, with a form of each kind the page can show. */
function pagesOf(viewer: Viewer): string {
  return [
    appsPage(viewer, [], 1000),
    apksTab(viewer, app, apks, {
      funnels: new Map(),
      adoption: [],
      now: new Date('2026-11-29T12:00:00Z'),
    }),
    installationsTab(viewer, app, {
      page: {
        page: 1,
        pageSize: 50,
        total: 1,
        installations: [installation],
        summary: { total: 1, online: 1, offline: 0, versions: [], ahead: [] },
      },
      input: ANY_LISTING,
      apks: [],
      now: since,
    }),
    rolloutsTab(viewer, app, { rollout: null, funnel: null, apks, now: since }),
    keysSection(viewer, {
      keys: [
        {
          id: 'k1',
          kind: 'ci-token',
          name: 'ci',
          apps: [PKG],
          createdBy: null,
          createdAt: since.toISOString(),
          lastUsedAt: null,
          revokedAt: null,
        },
      ],
      deviceOnly: false,
      now: since,
    }).text,
    membersPage(viewer, {
      members: [
        { ...otherOwner, createdAt: since, totp: false },
        { ...developer, createdAt: since, totp: false },
      ],
      founderTotp: false,
      invitations: [],
      now: since,
    }),
    webhooksPage(viewer, since, [{ doc: endpoint, latest: delivery }], EMPTY_INPUT),
    endpointPage(viewer, since, endpoint, [delivery], EMPTY_INPUT),
  ].join('\n');
}

/** The targets of the page's POST forms, log-out left out (every role has it). */
function postForms(out: string): string[] {
  const actions = [...out.matchAll(/<form[^>]*method="post"[^>]*action="([^"]+)"/g)].map(
    (m) => m[1]!,
  );
  return [...new Set(actions)].filter((a) => a !== '/ui/logout').sort();
}

const base = `/ui/apps/${PKG}`;
const EVERY_APP_FORM = [
  '/ui/apks',
  `${base}/apks`,
  `${base}/current`,
  `${base}/download-links`,
  `${base}/installations/d1/status`,
  `${base}/rollouts`,
  '/ui/account/keys',
  '/ui/account/keys/k1/revoke',
  '/ui/members/invitations',
  '/ui/members/m3/role',
  '/ui/members/m3/remove',
  '/ui/webhooks',
  `/ui/webhooks/${HOOK}`,
  `/ui/webhooks/${HOOK}/test`,
  `/ui/webhook-deliveries/${DELIVERY}/redeliver`,
];
const OWNERS_ONLY = [
  '/ui/api-key',
  '/ui/account/api-key-restriction',
  '/ui/members/m2/role',
  '/ui/members/m2/remove',
];

test.each<[MemberRole, string[]]>([
  ['owner', [...EVERY_APP_FORM, ...OWNERS_ONLY]],
  ['admin', EVERY_APP_FORM],
  ['developer', ['/ui/apks', `${base}/apks`, `${base}/current`, `${base}/rollouts`]],
  ['viewer', []],
])('%s: only the forms of the role are shown', (role, forms) => {
  expect(postForms(pagesOf(viewerAs(role)))).toEqual([...forms].sort());
});

test('an admin may not give the owner role; an owner may', () => {
  const roles = (out: string) =>
    [...out.matchAll(/<select id="invite-role" name="role">([\s\S]*?)<\/select>/g)]
      .flatMap((m) => [...m[1]!.matchAll(/<option value="(\w+)"/g)])
      .map((m) => m[1]);
  expect(roles(pagesOf(viewerAs('admin')))).toEqual(['admin', 'developer', 'viewer']);
  expect(roles(pagesOf(viewerAs('owner')))).toEqual(['owner', 'admin', 'developer', 'viewer']);
});

test("a viewer's empty apps page does not invite an upload", () => {
  expect(appsPage(viewerAs('viewer'), [], 1000)).toContain('<p>No apps yet.</p>');
  expect(appsPage(viewerAs('developer'), [], 1000)).toContain(
    '<p>No apps yet: upload a first APK below.</p>',
  );
});
