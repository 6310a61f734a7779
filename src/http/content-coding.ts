import { Readable } from 'node:stream';
import { createGunzip, gunzipSync } from 'node:zlib';

/**
 * Whether an `Accept-Encoding` header (RFC 9110, section 12.5.3) admits gzip: named (or as `x-gzip`)
 * with a weight above 0, or not named but covered by `*` with a weight above 0.
 */
export function acceptsGzip(header: string | string[] | undefined): boolean {
  if (header === undefined) return false;
  let wildcard = false;
  for (const part of (Array.isArray(header) ? header.join(',') : header).split(',')) {
    const [coding = '', ...parameters] = part.split(';').map((item) => item.trim().toLowerCase());
    const weight = parameters.find((parameter) => parameter.startsWith('q='));
    const accepted = weight === undefined || Number(weight.slice(2)) > 0;
    if (coding === 'gzip' || coding === 'x-gzip') return accepted;
    if (coding === '*') wildcard = accepted;
  }
  return wildcard;
}

/** Below this many compressed bytes an answer is decompressed at once; above, as the client reads it. */
const DECOMPRESS_AT_ONCE_BELOW = 64 * 1024;

/**
 * A gzip-compressed body for a client that did not ask for gzip. A large one is a stream that
 * inflates as fast as the client reads and no faster (pipe's backpressure): a client that stops
 * reading holds the compressed bytes and a few zlib buffers, never the whole text (D28).
 */
export function decompressedBody(gzip: Buffer): Buffer | Readable {
  if (gzip.length < DECOMPRESS_AT_ONCE_BELOW) return gunzipSync(gzip);
  return Readable.from([gzip], { objectMode: false }).pipe(createGunzip());
}
