/**
 * One HTTPS POST of a delivery, behind the SSRF guard (docs/webhooks.md#ssrf): the host name is
 * resolved once, every resolved address must be public (unless private ones are allowed), and
 * the connection is pinned to the checked address (the `lookup` hook answers with it), so a DNS
 * answer that changes between the check and the connection (rebinding) cannot redirect it.
 * Resolving and posting each run under the delivery's deadline (WEBHOOK_TIMEOUT_MS). Redirects are
 * not followed.
 */
import type { LookupAddress } from 'node:dns';
import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupFunction } from 'node:net';
import { isIP } from 'node:net';
import type { IncomingMessage } from 'node:http';
import { request } from 'node:https';
import { withDeadline } from '../deadline';
import { AppError } from '../errors';
import { classifyAddress } from './address';

export interface DeliverOptions {
  /** WEBHOOK_ALLOW_PRIVATE: deliver to every address, not only global unicast. */
  readonly allowPrivate: boolean;
  readonly timeoutMs: number;
  /** Extra trusted CA (tests); unset: the system's. */
  readonly ca?: string;
  /** The resolver (tests); default: the system's. */
  readonly resolve?: (host: string) => Promise<LookupAddress[]>;
}

export interface Reply {
  readonly statusCode: number;
  readonly excerpt: string;
}

const EXCERPT_BYTES = 512;

/** The address to connect to: the host's, checked; throws WEBHOOK_TARGET_REFUSED otherwise. */
export async function pinnedAddress(url: URL, options: DeliverOptions): Promise<LookupAddress> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const literal = isIP(host);
  const resolve = options.resolve ?? ((h: string) => dnsLookup(h, { all: true, verbatim: true }));
  // The resolver under the delivery's deadline too: a name server that never answers must not
  // hold the worker slot (getaddrinfo cannot be cancelled; nothing waits for it any more).
  const found = literal
    ? [{ address: host, family: literal }]
    : await withDeadline(
        {
          ms: options.timeoutMs,
          what: 'webhook DNS',
          message: `${host}: no address in ${options.timeoutMs} ms`,
        },
        () => resolve(host),
      );
  if (found.length === 0) {
    throw new AppError('WEBHOOK_DELIVERY_FAILED', { message: `${host} has no address` });
  }
  const refused = found.find((a) => classifyAddress(a.address) !== 'public');
  if (refused && !options.allowPrivate) {
    throw new AppError('WEBHOOK_TARGET_REFUSED', {
      message: `${host} resolves to a ${classifyAddress(refused.address)} address (${refused.address}); deliveries there need WEBHOOK_ALLOW_PRIVATE`,
    });
  }
  return found[0]!;
}

/**
 * POSTs `body` to `url` over a connection to `address` only. `timeoutMs` is one deadline over
 * connecting, the headers and the excerpt: a receiver that trickles bytes cannot hold the delivery
 * (and its worker slot) longer. Only the first EXCERPT_BYTES of the reply are read; the connection
 * is then closed, whatever the receiver still sends.
 */
export function postPinned(
  url: URL,
  address: LookupAddress,
  headers: Readonly<Record<string, string>>,
  body: string,
  options: DeliverOptions,
): Promise<Reply> {
  const lookup: LookupFunction = (_host, opts, callback) => {
    if ((opts as { all?: boolean }).all) callback(null, [address]);
    else callback(null, address.address, address.family);
  };
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: 'POST',
      lookup,
      agent: false,
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      ...(options.ca ? { ca: options.ca } : {}),
    });
    const deadline = setTimeout(
      () => req.destroy(new Error(`no complete reply in ${options.timeoutMs} ms`)),
      options.timeoutMs,
    );
    const settle =
      <T>(fn: (v: T) => void) =>
      (v: T) => {
        clearTimeout(deadline);
        fn(v);
      };
    req.on('response', (res) =>
      readExcerpt(res, settle(resolve), settle(reject), () => req.destroy()),
    );
    req.on('error', settle(reject));
    req.end(body);
  });
}

/** Reads a reply until its end or EXCERPT_BYTES, whichever comes first, then hangs up. */
function readExcerpt(
  res: IncomingMessage,
  resolve: (r: Reply) => void,
  reject: (err: Error) => void,
  hangUp: () => void,
): void {
  const chunks: Buffer[] = [];
  let size = 0;
  const done = () => {
    hangUp();
    resolve({
      statusCode: res.statusCode ?? 0,
      excerpt: Buffer.concat(chunks).subarray(0, EXCERPT_BYTES).toString('utf8'),
    });
  };
  res.on('data', (c: Buffer) => {
    chunks.push(c);
    size += c.length;
    if (size >= EXCERPT_BYTES) done();
  });
  res.on('end', done);
  res.on('error', reject);
}
