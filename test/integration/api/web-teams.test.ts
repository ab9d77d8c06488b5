/**
 * Teams (issue 20, docs/teams.md) over real HTTPS against the real stack, one browser per person:
 * an owner invites by link, the invitee joins and logs in with their own email, the role's limits
 * hold, a demotion takes effect on the next request, a removal ends the member's sessions; admins
 * cannot touch owners; used and revoked links get their page. Every member change is one audit
 * entry with its actor and address (must-hold 3).
 */
import { createHash } from 'node:crypto';
import type { AuditEntry } from '../../helpers/audit-log';
import { Browser } from '../../helpers/browser';
import { CURRENT_HASH, newAccount, RFC7914_HASH, RFC7914_PASSWORD } from '../../helpers/accounts';
import { request } from '../../helpers/http';
import { startStack, type TestStack } from '../../helpers/stack';

jest.setTimeout(180_000);

let stack: TestStack;
let owner: { apiKey: string; email: string; id: string };
let ownerBrowser: Browser;
beforeAll(async () => {
  stack = await startStack({ workers: false, trustProxy: ['loopback'] });
  owner = await newAccount(stack);
  ownerBrowser = new Browser(stack, '198.51.100.10');
  expect((await ownerBrowser.logIn(owner.email, 'password-123')).status).toBe(303);
});
afterAll(() => stack.close());

const PASSWORD = 'member-pass-1';
let n = 0;
const freshEmail = (who: string) => `${who}${++n}-${Date.now()}@example.com`;

async function auditOf(action: string): Promise<AuditEntry[]> {
  const reply = await request(`${stack.urls.admin}/api/v2/audit?action=${action}&limit=200`, {
    headers: { authorization: `Bearer ${owner.apiKey}` },
    ca: stack.ca,
  });
  return reply.json<{ entries: AuditEntry[] }>().entries;
}

/** `by` invites `email` as `role` from the members page; the link shown once. */
async function invite(by: Browser, email: string, role: string): Promise<string> {
  const reply = await by.form('/ui/members/invitations', { email, role }, '/ui/members');
  expect(reply.status).toBe(201);
  const link = /id="invite-link">([^<]+)</.exec(reply.text)?.[1];
  if (!link) throw new Error(`no invitation link shown: ${reply.text.slice(0, 300)}`);
  return new URL(link).pathname;
}

async function joinAs(path: string, address: string): Promise<Browser> {
  const browser = new Browser(stack, address);
  const csrf = await browser.csrf(path);
  const joined = await browser.post(path, { password: PASSWORD, confirm: PASSWORD, _csrf: csrf });
  expect({ status: joined.status, to: joined.headers.location }).toEqual({
    status: 303,
    to: '/ui/apps',
  });
  return browser;
}

const memberIdOf = async (email: string) =>
  (await stack.mongo.db.collection('members').findOne({ email }))!._id.toHexString();

test('invite, join, log in, role limits, demotion at once, removal ends the sessions', async () => {
  const email = freshEmail('dev');
  const path = await invite(ownerBrowser, email, 'developer');
  const token = path.replace('/ui/join/', '');
  // Stored only as its SHA-256.
  const stored = await stack.mongo.db.collection('invitations').findOne({ email });
  expect(stored?.tokenHash).toBe(createHash('sha256').update(token).digest('hex'));
  expect(JSON.stringify(stored)).not.toContain(token);

  const joinPage = await new Browser(stack, '198.51.100.20').get(path);
  expect(joinPage.status).toBe(200);
  expect(joinPage.text).toContain(owner.email);
  expect(joinPage.text).toContain('developer');
  const member = await joinAs(path, '198.51.100.20');
  const apps = await member.get('/ui/apps');
  expect(apps.status).toBe(200);
  expect(apps.text).toContain(email);
  expect(apps.text).not.toContain(owner.apiKey); // the API key is the owners'
  expect((await new Browser(stack, '198.51.100.21').get(path)).status).toBe(410);

  // A developer: no owner or member changes; a rollout form reaches its use-case (no such app).
  expect((await member.form('/ui/api-key', { confirm: 'yes' })).status).toBe(403);
  expect(
    (
      await member.form(
        '/ui/members/invitations',
        { email: 'x@example.com', role: 'viewer' },
        '/ui/members',
      )
    ).status,
  ).toBe(403);
  expect((await member.form('/ui/apps/no.such.app/rollouts/pause')).status).toBe(404);

  // The member's own login.
  const again = new Browser(stack, '198.51.100.22');
  expect((await again.logIn(email, PASSWORD)).headers.location).toBe('/ui/apps');
  expect((await again.logIn(email, 'not-the-password')).status).toBe(401);

  const id = await memberIdOf(email);
  expect(
    (await ownerBrowser.form(`/ui/members/${id}/role`, { role: 'viewer' }, '/ui/members')).status,
  ).toBe(303);
  const refused = await member.form('/ui/apps/no.such.app/rollouts/pause');
  expect({ status: refused.status, text: refused.text }).toEqual({
    status: 403,
    text: 'Your role (viewer) may not do this.',
  });
  expect((await member.get('/ui/apps')).status).toBe(200); // still reads

  expect((await ownerBrowser.form(`/ui/members/${id}/remove`, {}, '/ui/members')).status).toBe(303);
  expect((await member.get('/ui/apps')).headers.location).toBe('/ui/login');
  expect((await again.get('/ui/apps')).headers.location).toBe('/ui/login');
  expect((await again.logIn(email, PASSWORD)).status).toBe(401);

  // One entry per change, with its actor and address.
  const one = async (action: string) => {
    const entries = (await auditOf(action)).filter((e) => e.details.email === email);
    expect({ action, count: entries.length }).toEqual({ action, count: 1 });
    return entries[0]!;
  };
  const ownerActor = { kind: 'session', id: owner.id, name: owner.email };
  expect(await one('member.invited')).toMatchObject({
    actor: ownerActor,
    address: '198.51.100.10',
    details: { role: 'developer' },
  });
  expect(await one('member.joined')).toMatchObject({
    actor: { kind: 'member', id, name: email },
    address: '198.51.100.20',
    resource: { kind: 'member', id },
  });
  expect(await one('member.role-changed')).toMatchObject({
    actor: ownerActor,
    address: '198.51.100.10',
    details: { from: 'developer', to: 'viewer' },
  });
  expect(await one('member.removed')).toMatchObject({
    actor: ownerActor,
    address: '198.51.100.10',
    resource: { kind: 'member', id },
  });
});

test("a member's login with an older-parameter hash rehashes it, as the owner's does", async () => {
  const email = freshEmail('old-hash');
  await joinAs(await invite(ownerBrowser, email, 'viewer'), '198.51.100.30');
  const members = stack.mongo.db.collection<{ email: string; passwordHash: string }>('members');
  await members.updateOne({ email }, { $set: { passwordHash: RFC7914_HASH } });
  expect((await new Browser(stack, '198.51.100.30').logIn(email, PASSWORD)).status).toBe(401);
  expect((await members.findOne({ email }))?.passwordHash).toBe(RFC7914_HASH);

  expect((await new Browser(stack, '198.51.100.30').logIn(email, RFC7914_PASSWORD)).status).toBe(
    303,
  );
  const stored = (await members.findOne({ email }))?.passwordHash ?? '';
  expect(stored).toMatch(CURRENT_HASH);
  // Of the same password: the next login works and leaves it alone.
  expect((await new Browser(stack, '198.51.100.30').logIn(email, RFC7914_PASSWORD)).status).toBe(
    303,
  );
  expect((await members.findOne({ email }))?.passwordHash).toBe(stored);
});

test('admins cannot add, change or remove owners; their changes name them', async () => {
  const adminEmail = freshEmail('admin');
  const admin = await joinAs(await invite(ownerBrowser, adminEmail, 'admin'), '198.51.100.30');
  const ownerEmail = freshEmail('owner2');
  await joinAs(await invite(ownerBrowser, ownerEmail, 'owner'), '198.51.100.31');
  const otherOwner = await memberIdOf(ownerEmail);

  const refusedInvite = await admin.form(
    '/ui/members/invitations',
    { email: freshEmail('x'), role: 'owner' },
    '/ui/members',
  );
  expect(refusedInvite.status).toBe(403);
  expect(
    (await admin.form(`/ui/members/${otherOwner}/role`, { role: 'viewer' }, '/ui/members')).status,
  ).toBe(403);
  expect((await admin.form(`/ui/members/${otherOwner}/remove`, {}, '/ui/members')).status).toBe(
    403,
  );
  // The founding owner is no member: nobody changes it through the members page.
  expect(
    (await ownerBrowser.form(`/ui/members/${owner.id}/remove`, {}, '/ui/members')).status,
  ).toBe(404);

  const viewerEmail = freshEmail('viewer');
  const path = await invite(admin, viewerEmail, 'viewer');
  const invitation = await stack.mongo.db.collection('invitations').findOne({ email: viewerEmail });
  const revoke = `/ui/members/invitations/${invitation!._id.toHexString()}/revoke`;
  expect((await admin.form(revoke, {}, '/ui/members')).status).toBe(303);
  const gone = await new Browser(stack, '198.51.100.32').get(path);
  expect({ status: gone.status, revoked: gone.text.includes('was revoked') }).toEqual({
    status: 410,
    revoked: true,
  });
  expect((await admin.form(revoke, {}, '/ui/members')).status).toBe(404);

  const adminId = await memberIdOf(adminEmail);
  const adminActor = { kind: 'member', id: adminId, name: adminEmail };
  const invited = (await auditOf('member.invited')).filter((e) => e.details.email === viewerEmail);
  const revoked = (await auditOf('member.invitation-revoked')).filter(
    (e) => e.details.email === viewerEmail,
  );
  expect(invited).toEqual([
    expect.objectContaining({ actor: adminActor, address: '198.51.100.30' }),
  ]);
  expect(revoked).toEqual([
    expect.objectContaining({ actor: adminActor, address: '198.51.100.30' }),
  ]);
  // Refused changes record nothing.
  expect(
    (await auditOf('member.role-changed')).filter((e) => e.resource.id === otherOwner),
  ).toEqual([]);
});

test('an email signs in once: no invitation or join for an existing login', async () => {
  const taken = await ownerBrowser.form(
    '/ui/members/invitations',
    { email: owner.email, role: 'viewer' },
    '/ui/members',
  );
  expect(taken.status).toBe(409);
  const email = freshEmail('race');
  const path = await invite(ownerBrowser, email, 'viewer');
  // Someone signs up with that email before the invitee joins: the join is refused.
  const signUp = await request(`${stack.urls.admin}/api/v2/accounts`, {
    method: 'POST',
    json: { email, password: PASSWORD },
    ca: stack.ca,
  });
  expect(signUp.status).toBe(201);
  const browser = new Browser(stack, '198.51.100.40');
  const csrf = await browser.csrf(path);
  const refused = await browser.post(path, { password: PASSWORD, confirm: PASSWORD, _csrf: csrf });
  expect(refused.status).toBe(409);
  expect(await stack.mongo.db.collection('members').countDocuments({ email })).toBe(0);
});

/** The join page of a link: its status, and whether it says the invitation was revoked. */
async function linkState(path: string, address: string) {
  const page = await new Browser(stack, address).get(path);
  return { status: page.status, revoked: page.text.includes('was revoked') };
}

test("issue 31.5: a removed or demoted inviter's pending invitations are revoked; the inviter is stored", async () => {
  const adminEmail = freshEmail('inviter');
  const admin = await joinAs(await invite(ownerBrowser, adminEmail, 'admin'), '198.51.100.60');
  const adminId = await memberIdOf(adminEmail);
  const invitedAdmin = freshEmail('invited-admin');
  const removedPath = await invite(admin, invitedAdmin, 'admin');
  const stored = await stack.mongo.db.collection('invitations').findOne({ email: invitedAdmin });
  expect(stored).toMatchObject({ inviterMemberId: adminId, invitedBy: adminEmail });
  const ownersInvitation = await stack.mongo.db
    .collection('invitations')
    .findOne({ email: adminEmail });
  expect(ownersInvitation).toMatchObject({ inviterMemberId: null });

  // Removed: the admin's link no longer joins, and the revocation is one entry per invitation.
  expect((await ownerBrowser.form(`/ui/members/${adminId}/remove`, {}, '/ui/members')).status).toBe(
    303,
  );
  expect(await linkState(removedPath, '198.51.100.61')).toEqual({ status: 410, revoked: true });
  const revoked = (await auditOf('member.invitation-revoked')).filter(
    (e) => e.details.email === invitedAdmin,
  );
  expect(revoked.map((e) => [e.resource.id, e.details.reason])).toEqual([
    [stored!._id.toHexString(), 'inviter removed'],
  ]);

  // Demoted: an admin made developer loses every pending link; an owner made admin loses the
  // owners' links only (an admin may still invite a developer).
  const secondEmail = freshEmail('inviter2');
  const second = await joinAs(await invite(ownerBrowser, secondEmail, 'admin'), '198.51.100.62');
  const devPath = await invite(second, freshEmail('dev-of-demoted'), 'developer');
  const ownerEmail = freshEmail('owner-inviter');
  const coOwner = await joinAs(await invite(ownerBrowser, ownerEmail, 'owner'), '198.51.100.63');
  const ownerPath = await invite(coOwner, freshEmail('owner-of-demoted'), 'owner');
  const keptPath = await invite(coOwner, freshEmail('viewer-of-demoted'), 'viewer');
  const demote = async (email: string, role: string) =>
    (
      await ownerBrowser.form(
        `/ui/members/${await memberIdOf(email)}/role`,
        { role },
        '/ui/members',
      )
    ).status;
  expect(await demote(secondEmail, 'developer')).toBe(303);
  expect(await demote(ownerEmail, 'admin')).toBe(303);
  expect(await linkState(devPath, '198.51.100.64')).toEqual({ status: 410, revoked: true });
  expect(await linkState(ownerPath, '198.51.100.64')).toEqual({ status: 410, revoked: true });
  expect((await linkState(keptPath, '198.51.100.64')).status).toBe(200);
  await joinAs(keptPath, '198.51.100.65');
});

test("issue 31.5: the inviter's role is checked again at join", async () => {
  const adminEmail = freshEmail('racer');
  const admin = await joinAs(await invite(ownerBrowser, adminEmail, 'admin'), '198.51.100.66');
  const path = await invite(admin, freshEmail('raced'), 'admin');
  // The inviter's role changes without the team page (as a change racing the invitation would).
  await stack.mongo.db
    .collection('members')
    .updateOne({ email: adminEmail }, { $set: { role: 'viewer' } });
  const browser = new Browser(stack, '198.51.100.67');
  const csrf = await browser.csrf(path);
  const refused = await browser.post(path, { password: PASSWORD, confirm: PASSWORD, _csrf: csrf });
  expect({ status: refused.status, revoked: refused.text.includes('was revoked') }).toEqual({
    status: 410,
    revoked: true,
  });
  expect(browser.cookie).not.toContain('__Host-apkrelay_session');
});

test('issue 31.5: keys and tokens record who made them', async () => {
  const adminEmail = freshEmail('key-maker');
  const admin = await joinAs(await invite(ownerBrowser, adminEmail, 'admin'), '198.51.100.68');
  const made = await admin.form('/ui/account/keys', {
    kind: 'ci-token',
    name: 'made by a member',
    apps: 'dev.apkrelay.sample',
  });
  expect(made.status).toBe(201);
  const byKey = await request(`${stack.urls.admin}/api/v2/account/keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${owner.apiKey}` },
    json: { kind: 'device-key', name: 'made by the key', apps: ['dev.apkrelay.sample'] },
    ca: stack.ca,
  });
  expect(byKey.status).toBe(201);
  const listed = await request(`${stack.urls.admin}/api/v2/account/keys`, {
    headers: { authorization: `Bearer ${owner.apiKey}` },
    ca: stack.ca,
  });
  const keys = listed.json<{ keys: Array<{ name: string; createdBy: unknown }> }>().keys;
  expect(keys.find((k) => k.name === 'made by a member')?.createdBy).toEqual({
    kind: 'member',
    id: await memberIdOf(adminEmail),
    name: adminEmail,
  });
  expect(keys.find((k) => k.name === 'made by the key')?.createdBy).toEqual({
    kind: 'account-key',
    id: owner.id,
    name: 'account key',
  });
  expect((await admin.get('/ui/account')).text).toContain(`made by ${adminEmail}`);
});

test('issue 31.9: removing a member deletes their half-finished logins', async () => {
  const email = freshEmail('pending');
  await joinAs(await invite(ownerBrowser, email, 'developer'), '198.51.100.69');
  const id = await memberIdOf(email);
  const pending = stack.mongo.db.collection('web_pending_logins');
  const expiresAt = new Date(Date.now() + 300_000);
  const user = { memberId: id, email, role: 'developer' };
  await pending.insertOne({
    _id: `pending-of-${id}` as never,
    accountId: owner.id,
    user,
    expiresAt,
  });
  const others = { _id: `pending-of-owner-${id}` as never, accountId: owner.id, expiresAt };
  await pending.insertOne({
    ...others,
    user: { memberId: null, email: owner.email, role: 'owner' },
  });
  expect((await ownerBrowser.form(`/ui/members/${id}/remove`, {}, '/ui/members')).status).toBe(303);
  expect(await pending.countDocuments({ _id: `pending-of-${id}` as never })).toBe(0);
  // The owner's own pending login is not the removed member's: it stays.
  expect(await pending.countDocuments({ _id: `pending-of-owner-${id}` as never })).toBe(1);
});

test('regenerating the account key is one audit entry (owners only)', async () => {
  const regenerated = await ownerBrowser.form('/ui/api-key', { confirm: 'yes' }, '/ui/apps');
  expect(regenerated.headers.location).toBe('/ui/apps');
  const entries = await stack.mongo.db
    .collection('audit_log')
    .find({ accountId: owner.id, action: 'account-key.regenerated' })
    .toArray();
  expect(entries).toEqual([
    expect.objectContaining({
      actor: { kind: 'session', id: owner.id, name: owner.email },
      resource: { kind: 'account-key', id: owner.id },
      address: '198.51.100.10',
    }),
  ]);
});
