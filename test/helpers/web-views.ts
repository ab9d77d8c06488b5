/** Literal inputs of the web administration's views, for their unit tests. */
import type { MemberRole } from '../../shared/accounts/principal';
import type { Account } from '../../shared/accounts/types';
import type { ObjectId } from 'mongodb';
import type { Viewer } from '../../api/web/views';
import type { ListingInput } from '../../api/devices/installations-list';
import type { ApkDoc } from '../../shared/catalog/types';

/** A signed-in user of account `a1`: the founding owner (who sees the API key), or a member. */
export function viewerAs(role: MemberRole = 'owner', csrf = 'c'): Viewer {
  const founder = role === 'owner';
  return {
    account: { id: 'a1', email: 'o@example.com', plan: { installations: 5 } } as Account,
    user: {
      memberId: founder ? null : 'm1',
      email: founder ? 'o@example.com' : `${role}@example.com`,
      role,
    },
    apiKey: founder ? 'ak' : null,
    csrf,
  };
}

/** A row of the installations tab: enabled, online, nothing installed. */
export function installationRow(
  deviceId: string,
  channel: 'sse' | 'pushlink' = 'sse',
  plVersion: string | null = null,
) {
  return {
    deviceId,
    status: 'enabled' as const,
    online: true,
    installedMd5: null,
    lastDownloadedMd5: null,
    pendingApkId: null,
    ahead: false,
    strategy: null,
    channel,
    plVersion,
    device: { brand: null, model: null, osVersion: null, sdkInt: null },
    metadata: [],
    location: null,
    lastInstall: null,
    registeredAt: '2026-11-25T12:00:00.000Z',
    lastSeenAt: '2026-11-25T12:00:00.000Z',
  };
}

/** The installations list as asked with no filter: first page, newest seen first. */
export const ANY_LISTING: ListingInput = {
  page: 1,
  pageSize: 50,
  status: null,
  q: '',
  version: null,
  meta: null,
  sort: 'lastSeen',
};
/** An APK record of version `versionCode` ("2.0", md5 "222…"), uploaded 2026-11-25 12:00 UTC. */
export function apkDoc(id: ObjectId, versionCode: number): ApkDoc {
  return {
    _id: id,
    versionCode,
    versionName: `${versionCode}.0`,
    md5: String(versionCode).repeat(32),
    sha256: String(versionCode).repeat(64),
    signerSha256: 'f'.repeat(64),
    size: 1000,
    uploadedAt: new Date('2026-11-25T12:00:00Z'),
  } as ApkDoc;
}
