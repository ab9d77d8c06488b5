/**
 * HTTP or HTTPS for the benchmarks' clients, chosen by a URL's protocol, so the same code drives a
 * deployment with TLS on (https://, the self-signed certificate) or off (http://, as behind a
 * TLS-terminating proxy). Agents are per protocol: node:http refuses an https.Agent and the
 * reverse, so an agent is made for the URLs it will carry.
 */
import {
  Agent as HttpAgent,
  request as httpRequest,
  type AgentOptions,
  type ClientRequest,
  type IncomingMessage,
  type RequestOptions,
} from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

/** What a report says was measured. */
export function transportLabel(tls: boolean): string {
  return tls ? 'HTTPS' : 'plain HTTP (TLS off, as behind a TLS-terminating proxy)';
}

/** True for https:, false for http:; anything else is an error. */
export function isSecure(url: string | URL): boolean {
  const protocol = new URL(url).protocol;
  if (protocol !== 'https:' && protocol !== 'http:') {
    throw new Error(`unsupported URL scheme ${protocol}`);
  }
  return protocol === 'https:';
}

/** A keep-alive (or not) agent for URLs of `url`'s protocol. */
export function agentFor(url: string | URL, options: AgentOptions): HttpAgent {
  return isSecure(url) ? new HttpsAgent(options) : new HttpAgent(options);
}

export interface SendOptions extends RequestOptions {
  /** HTTPS only: the trusted CA (PEM) and the name the certificate must carry. */
  readonly ca?: string;
  readonly servername?: string;
}

/** node:https.request or node:http.request by the URL's protocol (TLS options only for https). */
export function request(
  url: string,
  options: SendOptions,
  onResponse: (res: IncomingMessage) => void,
): ClientRequest {
  if (isSecure(url)) return httpsRequest(url, options, onResponse);
  const { ca: _ca, servername: _servername, ...plain } = options;
  return httpRequest(url, plain, onResponse);
}
