import { pipeline, type Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';

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

/**
 * A gzip stream inflated as fast as its reader reads and no faster (the pipeline's backpressure):
 * for a client that did not ask for gzip. An error on either side ends both.
 */
export function inflated(gzip: Readable): Readable {
  return pipeline(gzip, createGunzip(), () => {});
}
