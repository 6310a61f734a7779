import { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

/**
 * How much of a body the service reads and throws away after answering early; a client still
 * sending past this is cut off. It is well above the largest body any route accepts (10 MiB), so a
 * client that sends a too-large upload in full still reads the 413.
 */
export const DISCARD_LIMIT_BYTES = 64 * 1024 * 1024;

/** A client answered early that sends nothing for this long is cut off (nginx's lingering_timeout). */
const LINGER_IDLE_MS = 5_000;

export interface LingerLimits {
  /** How long a connection answered early may stay open in all (the request deadline). */
  totalMs: number;
}

/** Sockets whose request was answered before its body had arrived, until they close. */
const answeredEarly = new WeakSet<Socket>();

/**
 * D23: an answer sent before the request's body has arrived (413 over the limit, 401, 415, 400 for
 * bad gzip...) must reach the client.
 *
 * Node closes the connection of an answer that says `Connection: close` (as Fastify's body parser
 * asks on every body error, and as a client may ask itself) as soon as the answer is written. The
 * client is still sending; its next bytes meet a closed socket and the kernel answers with a reset,
 * which can destroy the answer waiting, unread, in the client's receive buffer, and makes curl and
 * the client package give up with a network error instead of reading "payload too large".
 *
 * So such a connection is closed the way web servers call a lingering close: the answer, then only
 * our half of the connection (the client reads the answer, then the end), while Node's parser goes
 * on reading the rest of the body and throwing it away, as it does with any body a handler did not
 * read. The socket closes once the client has closed its half too; or when it has sent
 * DISCARD_LIMIT_BYTES more, sent nothing for LINGER_IDLE_MS, or lingered for `totalMs`.
 */
export function registerEarlyAnswers(app: FastifyInstance, limits: LingerLimits): void {
  app.addHook('onSend', async (request, reply, payload) => {
    const raw = request.raw;
    // A real connection only: requests injected in process (tests) have none to linger on.
    if (!raw.complete && !raw.destroyed && raw.socket instanceof Socket) {
      // The client must not send another request on a connection whose request it has not finished.
      reply.header('connection', 'close');
      lingerAfterAnswer(raw.socket, limits);
    }
    return payload;
  });
}

/** Whether this socket's request has been answered while its body is still being discarded. */
export function isLingeringAfterAnswer(socket: Socket): boolean {
  return answeredEarly.has(socket);
}

function lingerAfterAnswer(socket: Socket & { destroySoon?: () => void }, limits: LingerLimits): void {
  if (answeredEarly.has(socket)) return;
  answeredEarly.add(socket);

  // Watched through the byte count rather than 'data' events: Node's HTTP parser reads the socket
  // itself (a 'data' listener would stop it), and a body being discarded emits no events.
  const idleMs = Math.min(LINGER_IDLE_MS, limits.totalMs);
  const startedAt = Date.now();
  const readAtAnswer = socket.bytesRead;
  let lastRead = readAtAnswer;
  let lastReadAt = startedAt;
  const watch = setInterval(
    () => {
      const now = Date.now();
      if (socket.bytesRead !== lastRead) {
        lastRead = socket.bytesRead;
        lastReadAt = now;
      }
      const overBound = lastRead - readAtAnswer > DISCARD_LIMIT_BYTES;
      if (overBound || now - lastReadAt >= idleMs || now - startedAt >= limits.totalMs) socket.destroy();
    },
    Math.min(100, idleMs / 4),
  ).unref();
  socket.once('close', () => {
    clearInterval(watch);
    answeredEarly.delete(socket);
  });

  // Node ends a `Connection: close` answer with `destroySoon()`: our half, then a full close as soon
  // as the answer is written. Only our half is closed here; the socket closes itself once the client
  // has closed its half too (or is cut off above).
  socket.destroySoon = () => socket.end();
}
