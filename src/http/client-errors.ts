import type { Socket } from 'node:net';
import { isLingeringAfterAnswer } from './early-answer.js';
import { API_SECURITY_HEADERS } from './security-headers.js';

/** Node's reasons for refusing a request before any route or hook sees it, with our words for them. */
const REFUSALS: Record<string, { status: number; title: string; message: string }> = {
  ERR_HTTP_REQUEST_TIMEOUT: {
    status: 408,
    title: 'Request Timeout',
    message: 'The request did not arrive in time.',
  },
  HPE_HEADER_OVERFLOW: {
    status: 431,
    title: 'Request Header Fields Too Large',
    message: 'The request headers are larger than 16 KiB.',
  },
};
const UNPARSABLE = { status: 400, title: 'Bad Request', message: 'The request is not valid HTTP.' };

/**
 * Fastify's `clientErrorHandler`: the answer to a request Node's HTTP parser refuses (a broken
 * request line or header, headers over the limit, a slow-loris past its deadline). It is written to
 * the socket directly, as no route runs; it is still D3's envelope with the security headers. The
 * path is unknown here, so `success: false` is always included: the client package reads it, and it
 * is the one client likely to meet a 408 (a slow upload).
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  // A reset connection has no one left to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  // The request was answered already, and the rest of its body was being discarded (early-answer.ts):
  // a second answer would corrupt the connection; it is only closed.
  if (isLingeringAfterAnswer(socket) || hasAnswerInFlight(socket)) {
    socket.destroy(error);
    return;
  }
  const refusal = REFUSALS[error.code ?? ''] ?? UNPARSABLE;
  if (socket.writable) {
    const body = JSON.stringify({ success: false, error: refusal.title, message: refusal.message });
    const headers = {
      ...API_SECURITY_HEADERS,
      'content-type': 'application/json; charset=utf-8',
      'content-length': String(Buffer.byteLength(body)),
      connection: 'close',
    };
    const head = Object.entries(headers)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    socket.write(`HTTP/1.1 ${refusal.status} ${refusal.title}\r\n${head}\r\n${body}`);
  }
  socket.destroy(error);
}

/** Node's own rule: no error answer once an answer's first bytes are on this socket. */
function hasAnswerInFlight(socket: Socket): boolean {
  const response = (socket as Socket & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
  return response?.headersSent === true;
}
