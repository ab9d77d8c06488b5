/**
 * Who a request acts as, and what it may do: the one module of access decisions (docs/keys.md).
 * Pure: authentication (api/auth.ts, shared/accounts/access-keys.ts) builds a principal once per
 * request, and every route declares the scope it needs; `decide` says yes or names the refusal.
 *
 * Kinds: the account's API key (everything, or only the device routes once its owner restricted
 * it), device keys (the device routes of their apps), CI tokens (upload and make-current of their
 * apps), and web sessions, whose scopes follow the signed-in user's role (docs/teams.md): the
 * account's founding owner and owners everything, admins all but the owner's, developers uploads,
 * make-current and rollouts, viewers reading only.
 */

export type PrincipalKind = 'account-key' | 'device-key' | 'ci-token' | 'session';

/**
 * What a route needs: `device` (registration, stream, heartbeat, download, metadata, exception
 * reports, the legacy push), `upload` (an APK of an app, and that upload's status), `make-current`
 * (choose an app's current APK), `manage` (everything else an owner does). Web pages also need:
 * `read` (a page), `self` (the user's own password, sessions and second factor), `rollout` (start
 * or act on a rollout), `members` (invite, change, remove members), `owner` (the account key's
 * regeneration and restriction, owners' membership).
 */
export type Scope =
  | 'device'
  | 'upload'
  | 'make-current'
  | 'manage'
  | 'read'
  | 'self'
  | 'rollout'
  | 'members'
  | 'owner';

/** A team member's role (docs/teams.md); the account's founding login is an owner. */
export type MemberRole = 'owner' | 'admin' | 'developer' | 'viewer';
export const MEMBER_ROLES: readonly MemberRole[] = ['owner', 'admin', 'developer', 'viewer'];

export interface Principal {
  readonly accountId: string;
  readonly kind: PrincipalKind;
  /** The key's or token's id; the account's id for the account key and sessions. */
  readonly id: string;
  readonly scopes: readonly Scope[];
  /** The packages it may act on; 'all' for the account key and sessions. */
  readonly apps: 'all' | readonly string[];
  /** The name its owner gave a device key or CI token (the audit log's actor name). */
  readonly name?: string;
  /** A web session's role (the founding owner: 'owner'). */
  readonly role?: MemberRole;
}

export interface Need {
  readonly scope: Scope;
  /** The package the request acts on, when the route names one. */
  readonly package?: string | undefined;
}

export type Refusal = 'KEY_SCOPE_REFUSED' | 'KEY_APP_REFUSED';
export type Decision = { readonly allow: true } | { readonly allow: false; readonly code: Refusal };

const ALL: readonly Scope[] = ['device', 'upload', 'make-current', 'manage'];

/** A web session's scopes by the user's role. */
const ROLE_SCOPES: Readonly<Record<MemberRole, readonly Scope[]>> = {
  owner: [...ALL, 'read', 'self', 'rollout', 'members', 'owner'],
  admin: [...ALL, 'read', 'self', 'rollout', 'members'],
  developer: ['upload', 'make-current', 'read', 'self', 'rollout'],
  viewer: ['read', 'self'],
};

/**
 * The scopes of a kind. `deviceOnly`: the owner restricted the account key to device routes;
 * `role`: a web session's user's role (default owner, the founding login).
 */
export function scopesOf(
  kind: PrincipalKind,
  options: { deviceOnly?: boolean; role?: MemberRole } = {},
): Scope[] {
  switch (kind) {
    case 'account-key':
      return options.deviceOnly ? ['device'] : [...ALL];
    case 'session':
      return [...ROLE_SCOPES[options.role ?? 'owner']];
    case 'device-key':
      return ['device'];
    case 'ci-token':
      return ['upload', 'make-current'];
  }
}

export function principalOf(input: {
  readonly accountId: string;
  readonly kind: PrincipalKind;
  readonly id?: string;
  readonly apps?: readonly string[];
  readonly deviceOnly?: boolean;
  readonly name?: string;
  readonly role?: MemberRole;
}): Principal {
  const role = input.kind === 'session' ? (input.role ?? 'owner') : undefined;
  const everyApp = input.kind === 'account-key' || input.kind === 'session';
  return {
    accountId: input.accountId,
    kind: input.kind,
    id: input.id ?? input.accountId,
    scopes: scopesOf(input.kind, {
      deviceOnly: input.deviceOnly === true,
      ...(role ? { role } : {}),
    }),
    apps: everyApp ? 'all' : [...(input.apps ?? [])],
    ...(input.name !== undefined ? { name: input.name } : {}),
    ...(role ? { role } : {}),
  };
}

/**
 * Whether `principal` may do what `need` asks: the scope first, then the app when the route names
 * one (a key limited to apps and a route that names none: allowed, the route scopes by account).
 */
export function decide(principal: Principal, need: Need): Decision {
  if (!principal.scopes.includes(need.scope)) return { allow: false, code: 'KEY_SCOPE_REFUSED' };
  if (need.package === undefined || principal.apps === 'all') return { allow: true };
  return principal.apps.includes(need.package)
    ? { allow: true }
    : { allow: false, code: 'KEY_APP_REFUSED' };
}
