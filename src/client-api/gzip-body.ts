import { Transform, type Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import type { FastifyRequest } from 'fastify';
import { unsupportedContentEncoding } from '../wire/api-error.js';

/**
 * A preParsing step: bodies sent with `Content-Encoding: gzip` are decompressed before the JSON
 * parser reads them, and the route's body limit applies to the decompressed size (CLIENT-WIRE.md).
 * The decompressed bytes are counted here too, so a gzip bomb is cut off as soon as it passes the
 * limit instead of being inflated to the end.
 */
export async function decompressGzipBody(request: FastifyRequest, _reply: unknown, payload: Readable): Promise<Readable> {
  const encoding = (request.headers['content-encoding'] ?? '').trim().toLowerCase();
  if (encoding === '' || encoding === 'identity') return payload;
  if (encoding !== 'gzip' && encoding !== 'x-gzip') throw unsupportedContentEncoding(encoding);

  const limit = request.routeOptions.bodyLimit ?? Number.POSITIVE_INFINITY;
  let decompressed = 0;
  const limitDecompressed = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      decompressed += chunk.length;
      if (decompressed > limit) callback(bodyTooLarge());
      else callback(null, chunk);
    },
  });
  // Fastify compares this with Content-Length (the compressed size) once the body has been read.
  const counted = limitDecompressed as Transform & { receivedEncodedLength: number };
  counted.receivedEncodedLength = 0;
  payload.on('data', (chunk: Buffer) => {
    counted.receivedEncodedLength += chunk.length;
  });

  // Not `pipeline`: on an error it destroys the request stream, and with it the socket, before the
  // answer (413, 400) is written (D23). The request keeps flowing instead, its rest read and
  // discarded (http/early-answer.ts bounds how much).
  const gunzip = createGunzip();
  const stop = (error: Error) => {
    payload.unpipe(gunzip);
    payload.resume();
    gunzip.destroy();
    limitDecompressed.destroy(error);
  };
  gunzip.on('error', stop);
  limitDecompressed.on('error', (error) => stop(error));
  // A client that goes away mid-body: the parser hears of it through the stream it reads.
  payload.on('error', stop);
  payload.pipe(gunzip).pipe(limitDecompressed);
  return limitDecompressed;
}

/** Mapped to 413 by the error handler, like Fastify's own body limit. */
function bodyTooLarge(): Error {
  return Object.assign(new Error('Request body is too large'), { code: 'FST_ERR_CTP_BODY_TOO_LARGE', statusCode: 413 });
}
