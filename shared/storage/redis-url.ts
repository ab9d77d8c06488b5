/**
 * `REDIS_URL` names either one Redis (`redis://`, `rediss://`, as ioredis reads them) or a Redis
 * Cluster: `redis+cluster://[user[:password]@]host:port[,host:port...]` (`rediss+cluster://` for
 * TLS). The listed nodes are only where the client starts: it learns the others, and which node
 * holds which slot, from the cluster itself. A cluster has one database, so no path is allowed.
 */

export interface ClusterNode {
  readonly host: string;
  readonly port: number;
}

export interface ClusterTarget {
  readonly nodes: readonly ClusterNode[];
  readonly tls: boolean;
  readonly username: string | undefined;
  readonly password: string | undefined;
}

const CLUSTER_URL = /^(rediss?)\+cluster:\/\/(?:([^@/]*)@)?([^@/?#]+)\/?$/;
const NODE = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9.-]+))(?::(\d{1,5}))?$/;

/** True when `url` uses one of the cluster schemes (whether or not the rest is valid). */
export function isClusterUrl(url: string): boolean {
  return /^rediss?\+cluster:/i.test(url);
}

/** The cluster a `redis+cluster://` URL names; throws an Error saying what is wrong. */
export function parseClusterUrl(url: string): ClusterTarget {
  const match = CLUSTER_URL.exec(url);
  if (!match) {
    throw new Error('expected redis+cluster://[user[:password]@]host:port[,host:port...]');
  }
  const [, scheme = '', credentials, hosts = ''] = match;
  const nodes = hosts.split(',').map(parseNode);
  const colon = credentials?.indexOf(':') ?? -1;
  const user =
    credentials === undefined ? '' : colon < 0 ? credentials : credentials.slice(0, colon);
  const password = colon < 0 ? undefined : credentials!.slice(colon + 1);
  return {
    nodes,
    tls: scheme === 'rediss',
    username: user === '' ? undefined : decode(user),
    password: password === undefined || password === '' ? undefined : decode(password),
  };
}

function parseNode(text: string): ClusterNode {
  const match = NODE.exec(text);
  const port = Number(match?.[3] ?? 6379);
  if (!match || port < 1 || port > 65535) {
    throw new Error(`"${text}" is not a host:port`);
  }
  return { host: match[1] ?? match[2]!, port };
}

function decode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    throw new Error('the credentials are not valid percent-encoding');
  }
}
