/**
 * HTTP/1.1 written byte for byte to a TCP socket, with no HTTP client in between that would
 * normalise, refuse or fix the request, and the answer read back from the socket (the fuzz campaign,
 * and the tests of what reaches a client that is still sending when it is answered).
 */
import { connect } from 'node:net';

export interface RawRequest {
  method: string;
  /** The request-target exactly as written on the request line (path and query). */
  target: string;
  /** In order, duplicates allowed; values may hold any byte (latin1) or any character (UTF-8). */
  headers?: [string, string][];
  body?: string | Buffer;
  /** Content-Length: the body's length unless a number is given (a mismatch) or `omit`. */
  contentLength?: number | 'omit';
  /** Send the body with `Transfer-Encoding: chunked` (and no Content-Length). */
  chunked?: boolean;
  /** Leave out `Connection: close`, as curl and most clients do (the connection is then kept alive). */
  keepAlive?: boolean;
  /** The Host header's value (by default the server's address); `null` sends none. */
  host?: string | null;
  /** The request line's version; 1.1 unless told. */
  httpVersion?: '1.0' | '1.1';
}

export interface SendOptions {
  /**
   * Send the whole request, then wait for the server to close the connection, and fail on any
   * connection error (a reset, a broken pipe) on the way, even after the answer: a reset can destroy
   * an answer in a client's receive buffer, and curl or the client package give up on one while they
   * are still sending. By default a failed write is ignored and the first complete answer counts.
   */
  untilCleanClose?: boolean;
}

export interface RawResponse {
  status: number;
  /** Lower-cased names; the last value of a repeated header. */
  headers: Record<string, string>;
  body: string;
}

/** How long an answer may take before the request counts as a hang: far beyond slow, on a loaded machine too. */
const ANSWER_TIMEOUT_MS = 120_000;

/** Header text: latin1 when every character fits a byte (so 0x80-0xff go out as is), else UTF-8. */
const headerBytes = (text: string) => Buffer.from(text, /^[\x00-\xff]*$/.test(text) ? 'latin1' : 'utf8');

function encodeRequest(request: RawRequest, host: string): Buffer {
  const body = request.body === undefined ? undefined : Buffer.isBuffer(request.body) ? request.body : Buffer.from(request.body, 'utf8');
  const parts: Buffer[] = [
    Buffer.from(`${request.method} `, 'latin1'),
    Buffer.from(request.target, 'utf8'),
    Buffer.from(` HTTP/${request.httpVersion ?? '1.1'}\r\n`, 'latin1'),
  ];
  const sentHost = request.host === undefined ? host : request.host;
  const headers: [string, string][] = [...(sentHost === null ? [] : [['Host', sentHost] as [string, string]]), ...(request.headers ?? [])];
  if (request.chunked) headers.push(['Transfer-Encoding', 'chunked']);
  else if (request.contentLength !== 'omit' && (body !== undefined || request.contentLength !== undefined)) {
    headers.push(['Content-Length', String(request.contentLength ?? body!.length)]);
  }
  if (!request.keepAlive) headers.push(['Connection', 'close']);
  for (const [name, value] of headers) parts.push(headerBytes(`${name}: `), headerBytes(value), Buffer.from('\r\n'));
  parts.push(Buffer.from('\r\n'));
  if (body !== undefined) {
    if (request.chunked) {
      // Two chunks when there is something to split, then the last chunk.
      const middle = Math.floor(body.length / 2);
      for (const chunk of [body.subarray(0, middle), body.subarray(middle)]) {
        if (chunk.length > 0) parts.push(Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n'));
      }
      parts.push(Buffer.from('0\r\n\r\n'));
    } else {
      parts.push(body);
    }
  } else if (request.chunked) {
    parts.push(Buffer.from('0\r\n\r\n'));
  }
  return Buffer.concat(parts);
}

/**
 * Writes the request to a new connection and reads the answer: until it is complete, or until the
 * server closes the connection. Rejects when no complete answer arrives within ANSWER_TIMEOUT_MS.
 */
export function sendRaw(port: number, request: RawRequest, options: SendOptions = {}): Promise<RawResponse> {
  const bytes = encodeRequest(request, `127.0.0.1:${port}`);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let lastError: Error | undefined;
    let settled = false;
    const socket = connect({ host: '127.0.0.1', port });
    const timer = setTimeout(() => {
      settle(() => reject(new Error(`no answer within ${ANSWER_TIMEOUT_MS / 1000} s (a hang)`)));
      socket.destroy();
    }, ANSWER_TIMEOUT_MS);
    const settle = (action: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      action();
    };
    socket.on('data', (chunk) => {
      chunks.push(chunk);
      if (options.untilCleanClose) return;
      // Answers end with the connection (Connection: close); parse early only to stop waiting on a
      // server that keeps reading a body it has already answered.
      const parsed = parseResponse(Buffer.concat(chunks), request.method === 'HEAD');
      if (parsed?.complete) {
        settle(() => resolve(parsed.response));
        socket.destroy();
      }
    });
    // Writing a large body to a server that has already answered (413) may fail: the answer counts.
    socket.on('error', (error: Error & { code?: string }) => {
      lastError = error;
      if (options.untilCleanClose) {
        const answered = parseResponse(Buffer.concat(chunks), request.method === 'HEAD')?.complete ? 'after' : 'before';
        settle(() => reject(new Error(`the connection failed ${answered} the answer arrived (${error.code ?? error.message})`)));
      }
    });
    socket.on('close', () => {
      const parsed = parseResponse(Buffer.concat(chunks), request.method === 'HEAD');
      if (parsed !== null) settle(() => resolve(parsed.response));
      else settle(() => reject(new Error(`connection closed without a complete answer${lastError ? ` (${lastError.message})` : ''}`)));
    });
    socket.write(bytes);
  });
}

/** A complete HTTP/1.1 answer (1xx interim answers skipped), or null. */
function parseResponse(data: Buffer, isHead: boolean): { response: RawResponse; complete: boolean } | null {
  let offset = 0;
  for (;;) {
    const end = data.indexOf('\r\n\r\n', offset);
    if (end < 0) return null;
    const head = data.subarray(offset, end).toString('latin1').split('\r\n');
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head[0] ?? '')?.[1]);
    if (!Number.isInteger(status)) return null;
    const headers: Record<string, string> = {};
    for (const line of head.slice(1)) {
      const colon = line.indexOf(':');
      if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const bodyStart = end + 4;
    if (status >= 100 && status < 200) {
      offset = bodyStart;
      continue;
    }
    const rest = data.subarray(bodyStart);
    if (isHead || status === 204 || status === 304) return { response: { status, headers, body: '' }, complete: true };
    if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
      const decoded = decodeChunked(rest);
      return decoded === null ? null : { response: { status, headers, body: decoded.toString('utf8') }, complete: true };
    }
    if (headers['content-length'] !== undefined) {
      const length = Number(headers['content-length']);
      if (rest.length < length) return null;
      return { response: { status, headers, body: rest.subarray(0, length).toString('utf8') }, complete: true };
    }
    // Delimited by the end of the connection: complete only once it closes.
    return { response: { status, headers, body: rest.toString('utf8') }, complete: false };
  }
}

function decodeChunked(data: Buffer): Buffer | null {
  const out: Buffer[] = [];
  let offset = 0;
  for (;;) {
    const lineEnd = data.indexOf('\r\n', offset);
    if (lineEnd < 0) return null;
    const size = parseInt(data.subarray(offset, lineEnd).toString('latin1'), 16);
    if (Number.isNaN(size)) return null;
    if (size === 0) return Buffer.concat(out);
    if (data.length < lineEnd + 2 + size + 2) return null;
    out.push(data.subarray(lineEnd + 2, lineEnd + 2 + size));
    offset = lineEnd + 2 + size + 2;
  }
}

/** A request whose body is still on its way: `finish` sends the rest and resolves with the answer. */
export interface RequestInFlight {
  finish(): Promise<RawResponse>;
}

/**
 * Writes the request up to all but the last `heldBack` bytes of its body (a slow client, as far as
 * the server can tell) and holds the rest until `finish`. Resolves once what was sent is written to
 * the socket; the caller tells when the server has read it (by watching its queries, say).
 */
export async function startRaw(port: number, request: RawRequest, heldBack = 1): Promise<RequestInFlight> {
  const bytes = encodeRequest({ ...request, keepAlive: true }, `127.0.0.1:${port}`);
  const socket = connect({ host: '127.0.0.1', port });
  const chunks: Buffer[] = [];
  socket.on('data', (chunk) => chunks.push(chunk));
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  socket.on('error', () => {});
  await new Promise<void>((resolve) => socket.write(bytes.subarray(0, bytes.length - heldBack), () => resolve()));
  return {
    async finish() {
      socket.write(bytes.subarray(bytes.length - heldBack));
      const deadline = Date.now() + ANSWER_TIMEOUT_MS;
      for (;;) {
        const parsed = parseResponse(Buffer.concat(chunks), request.method === 'HEAD');
        if (parsed?.complete) {
          socket.destroy();
          return parsed.response;
        }
        if (socket.destroyed || Date.now() > deadline) {
          await closed;
          const last = parseResponse(Buffer.concat(chunks), request.method === 'HEAD');
          if (last) return last.response;
          throw new Error('no complete answer to a request finished late');
        }
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    },
  };
}
