import type { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';

/**
 * A body sent as a stream, whose failure after the headers is logged once (D33). Fastify then
 * destroys the connection, so the client sees the download end early and never a second answer;
 * but its own log line for that is off with its request logging (app.ts), so without this a
 * database failing in the middle of an export went unlogged. A client that goes away is not a
 * failure: Fastify destroys the stream without an error, and nothing is logged.
 */
export function loggedStream<T extends Readable>(request: FastifyRequest, stream: T): T {
  stream.once('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'ERR_STREAM_PREMATURE_CLOSE') return;
    request.log.error({ err: error }, 'the answer failed after its headers were sent; the connection was closed');
  });
  return stream;
}
