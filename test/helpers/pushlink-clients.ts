/**
 * The exact requests of PushLink's public upload and download clients, as their published sources
 * build them (`../shared/spec/pushlink-clients.md`): part order, part headers, boundaries, body
 * framing (a known length or chunked) and request headers, written byte for byte on a raw TLS
 * socket so that no HTTP library of ours normalises them.
 */
import { openRaw, type RawResponse } from '../resilience/protocol/raw-http';
import { chunk } from './raw-upload';

export interface ClientUpload {
  readonly apiKey: string;
  readonly apk: Buffer;
  /** The file's base name, as the client puts it in `filename`. */
  readonly filename: string;
  readonly current: boolean;
}

interface Shape {
  readonly boundary: string;
  /** Dart's `http` writes every header name in lower case. */
  readonly lowerCase?: boolean;
  readonly headers: readonly string[];
  readonly chunked: boolean;
  readonly parts: readonly Buffer[];
}

const CRLF = '\r\n';
const text = (s: string) => Buffer.from(s, 'latin1');

/**
 * One part: its header lines, a blank line, its content. Each part starts with the delimiter; the
 * CRLF before the next delimiter belongs to it, so joining the parts and the close makes the body.
 */
const part = (boundary: string, headerLines: readonly string[], content: Buffer): Buffer =>
  Buffer.concat([
    text(`--${boundary}${CRLF}${headerLines.join(CRLF)}${CRLF}${CRLF}`),
    content,
    text(CRLF),
  ]);

/** gradle-pushlink-plugin 1.0.0: Apache HttpClient 4.5.1 with httpmime's MultipartEntityBuilder. */
function gradleShape(u: ClientUpload): Shape {
  const boundary = 'Hs2kf8_Qz3PdXv9LwNc-7TyRbA1mE0';
  const textPart = (name: string, value: string) =>
    part(
      boundary,
      [
        `Content-Disposition: form-data; name="${name}"`,
        'Content-Type: text/plain; charset=ISO-8859-1',
        'Content-Transfer-Encoding: 8bit',
      ],
      text(value),
    );
  return {
    boundary,
    chunked: false,
    headers: [
      'Connection: Keep-Alive',
      'User-Agent: Apache-HttpClient/4.5.1 (Java/1.8.0_292)',
      'Accept-Encoding: gzip,deflate',
    ],
    parts: [
      textPart('apiKey', u.apiKey),
      part(
        boundary,
        [
          `Content-Disposition: form-data; name="apk"; filename="${u.filename}"`,
          'Content-Type: application/octet-stream',
          'Content-Transfer-Encoding: binary',
        ],
        u.apk,
      ),
      ...(u.current ? [textPart('current', 'true')] : []),
    ],
  };
}

/** react-native-push-link's `pushlink-publish-apk`: axios with a form-data stream, apk first. */
function reactNativeShape(u: ClientUpload): Shape {
  const boundary = '--------------------------483920174653028194756301';
  const field = (name: string, value: string) =>
    part(boundary, [`Content-Disposition: form-data; name="${name}"`], text(value));
  return {
    boundary,
    chunked: true,
    headers: [
      'Accept: application/json, text/plain, */*',
      'User-Agent: axios/1.7.9',
      'Accept-Encoding: gzip, compress, deflate, br',
      'Connection: keep-alive',
    ],
    parts: [
      part(
        boundary,
        [
          `Content-Disposition: form-data; name="apk"; filename="${u.filename}"`,
          'Content-Type: application/vnd.android.package-archive',
        ],
        u.apk,
      ),
      field('apiKey', u.apiKey),
      ...(u.current ? [field('current', 'true')] : []),
    ],
  };
}

/** flutter_push_link's `publish.apk`: Dart `http`'s MultipartRequest (lower-case part headers). */
function flutterShape(u: ClientUpload): Shape {
  const boundary = 'dart-http-boundary-ZqV3+l0kd_Hn8rT.cX2yWm-PoA9eJbS4uFg7Ri1sQv6tNwK5LhY';
  const field = (name: string, value: string) =>
    part(boundary, [`content-disposition: form-data; name="${name}"`], text(value));
  return {
    boundary,
    lowerCase: true,
    chunked: false,
    headers: ['user-agent: Dart/3.5 (dart:io)', 'accept-encoding: gzip'],
    parts: [
      field('apiKey', u.apiKey),
      ...(u.current ? [field('current', 'true')] : []),
      part(
        boundary,
        [
          'content-type: application/octet-stream',
          `content-disposition: form-data; name="apk"; filename="${u.filename}"`,
        ],
        u.apk,
      ),
    ],
  };
}

export const UPLOAD_CLIENTS = {
  'gradle-pushlink-plugin 1.0.0': gradleShape,
  'react-native-push-link pushlink-publish-apk': reactNativeShape,
  'flutter_push_link publish.apk': flutterShape,
} as const;

export type UploadClient = keyof typeof UPLOAD_CLIENTS;

/** Sends `client`'s upload to `url` (the admin host) and reads the one reply. */
export async function sendClientUpload(
  client: UploadClient,
  url: string,
  ca: string,
  upload: ClientUpload,
): Promise<RawResponse> {
  const shape = UPLOAD_CLIENTS[client](upload);
  const body = [...shape.parts, text(`--${shape.boundary}--${CRLF}`)];
  const length = body.reduce((n, b) => n + b.length, 0);
  const named = (name: string) => (shape.lowerCase ? name.toLowerCase() : name);
  const head = [
    'POST /apps/api_upload HTTP/1.1',
    `${named('Host')}: ${new URL(url).host}`,
    `${named('Content-Type')}: multipart/form-data; boundary=${shape.boundary}`,
    shape.chunked ? 'Transfer-Encoding: chunked' : `${named('Content-Length')}: ${length}`,
    ...shape.headers,
  ];
  const connection = await openRaw(url, ca);
  try {
    await connection.write(`${head.join(CRLF)}${CRLF}${CRLF}`);
    for (const piece of body) {
      // form-data streams a file in 64 KiB reads; each becomes one chunk on the wire.
      for (let at = 0; at < piece.length; at += 64 * 1024) {
        const slice = piece.subarray(at, at + 64 * 1024);
        await connection.write(shape.chunked ? chunk(slice) : slice);
      }
    }
    if (shape.chunked) await connection.write(`0${CRLF}${CRLF}`);
    return await connection.response(60_000);
  } finally {
    await connection.close();
  }
}

export const DOWNLOAD_CLIENTS = {
  'react-native-push-link download script (axios)': [
    'Accept: application/json, text/plain, */*',
    'User-Agent: axios/1.7.9',
    'Accept-Encoding: gzip, compress, deflate, br',
    'Connection: keep-alive',
  ],
  'flutter_push_link download script (Dart http)': [
    'user-agent: Dart/3.5 (dart:io)',
    'accept-encoding: gzip',
  ],
} as const;

export type DownloadClient = keyof typeof DOWNLOAD_CLIENTS;

/** `GET /download?package=…&api_key=…` as the client's script sends it. */
export async function sendClientDownload(
  client: DownloadClient,
  url: string,
  ca: string,
  query: { readonly package: string; readonly apiKey: string },
): Promise<RawResponse> {
  const path = `/download?package=${encodeURIComponent(query.package)}&api_key=${encodeURIComponent(query.apiKey)}`;
  const head = [`GET ${path} HTTP/1.1`, `Host: ${new URL(url).host}`, ...DOWNLOAD_CLIENTS[client]];
  const connection = await openRaw(url, ca);
  try {
    await connection.write(`${head.join(CRLF)}${CRLF}${CRLF}`);
    return await connection.response(60_000);
  } finally {
    await connection.close();
  }
}
