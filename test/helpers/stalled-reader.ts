/**
 * D33's client that stops reading: a request written to a raw socket whose answer is not read
 * (the kernel's buffers fill, then whatever the server holds for it), and what the server then
 * holds in memory, measured after a full garbage collection.
 */
import { connect, type Socket } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { gunzipSync } from 'node:zlib';
import { HANG_MS } from './eventually.js';

/** The attack's report (bench/heavy-reports.ts). */
export { longMessageReport } from '../../bench/heavy-reports.js';

export interface StalledReader {
  socket: Socket;
  /** Starts reading at last; resolves with the whole answer once the server has closed the connection. */
  readToEnd(): Promise<{ status: number; headers: Record<string, string>; body: Buffer }>;
}

/** `GET target`, with `Connection: close`, and then no reading at all. */
export function stalledRequest(port: number, target: string, headers: Record<string, string>): StalledReader {
  const socket = connect({ host: '127.0.0.1', port });
  socket.on('error', () => {});
  const head = Object.entries({ Host: `127.0.0.1:${port}`, Connection: 'close', ...headers })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.write(`GET ${target} HTTP/1.1\r\n${head}\r\n`);
  socket.pause();
  return {
    socket,
    readToEnd: () =>
      new Promise((resolve, reject) => {
        const chunks: Buffer[] = [];
        socket.on('data', (chunk: Buffer) => chunks.push(chunk));
        socket.once('error', reject);
        socket.once('end', () => {
          try {
            resolve(parseAnswer(Buffer.concat(chunks)));
          } catch (error) {
            reject(error);
          }
        });
        socket.resume();
      }),
  };
}

function parseAnswer(raw: Buffer) {
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) throw new Error(`no complete header block in ${raw.length} bytes`);
  const [statusLine = '', ...lines] = raw.subarray(0, end).toString('latin1').split('\r\n');
  const headers = Object.fromEntries(
    lines.map((line) => [line.slice(0, line.indexOf(':')).trim().toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
  );
  let body = raw.subarray(end + 4);
  if (headers['transfer-encoding'] === 'chunked') body = dechunk(body);
  if (headers['content-encoding'] === 'gzip') body = gunzipSync(body);
  return { status: Number(statusLine.split(' ')[1]), headers, body };
}

/** RFC 9112 7.1, strictly: a body cut short (no last chunk) throws. */
function dechunk(body: Buffer): Buffer {
  const pieces: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = body.indexOf('\r\n', at);
    if (lineEnd < 0) throw new Error('the chunked body ends without its last chunk');
    const size = Number.parseInt(body.subarray(at, lineEnd).toString('latin1'), 16);
    if (size === 0) return Buffer.concat(pieces);
    pieces.push(body.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
}

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

/** Bytes this process holds, JavaScript heap and buffers, once what nothing references is collected. */
export function heldBytes(): number {
  collectGarbage();
  collectGarbage();
  const { heapUsed, external } = process.memoryUsage();
  return heapUsed + external;
}

/**
 * Resolves once the server has stopped producing for the stalled readers: each one's server-side
 * socket waits for the client (or has finished), and no SQL statement ran for `quietMs`.
 */
export async function untilStalled(
  serverSockets: () => Socket[],
  expected: number,
  queryCount: () => number,
  quietMs = 300,
): Promise<void> {
  const deadline = Date.now() + HANG_MS;
  let lastCount = -1;
  let quietSince = Date.now();
  for (;;) {
    if (Date.now() > deadline) throw new Error('the server never stopped producing for the readers that stopped reading');
    const sockets = serverSockets();
    const waiting = sockets.filter((socket) => socket.writableNeedDrain || socket.writableFinished || socket.destroyed).length;
    const count = queryCount();
    if (count !== lastCount) {
      lastCount = count;
      quietSince = Date.now();
    }
    if (sockets.length >= expected && waiting >= expected && Date.now() - quietSince >= quietMs) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
