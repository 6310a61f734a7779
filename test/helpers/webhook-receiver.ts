import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** What a receiver does with one request: answer with a status, or never answer (the sender's timeout). */
export type Behaviour = { status: number; headers?: Record<string, string>; body?: string; delayMs?: number } | 'hang';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * A webhook receiver on 127.0.0.1 for the tests: records every request, answers each with the next
 * behaviour of its script (then with `otherwise`), and can be closed and opened again on the same
 * port (a receiver that is down: connection refused).
 */
export interface Receiver {
  url: string;
  port: number;
  received: ReceivedRequest[];
  /** Behaviours for the next requests, in order. */
  script: Behaviour[];
  /** What requests past the script get. */
  otherwise: Behaviour;
  /** Resolves once `count` requests have arrived; after `timeoutMs` (a hang, not a slow machine) rejects saying how many came. */
  waitFor(count: number, timeoutMs?: number): Promise<void>;
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(otherwise: Behaviour = { status: 200 }): Promise<Receiver> {
  const received: ReceivedRequest[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const sockets = new Set<Socket>();
  const hanging = new Set<ServerResponse>();
  let server: Server;
  let port = 0;

  const listen = () =>
    new Promise<void>((resolve) => {
      server = createServer((request, response) => {
        const chunks: Buffer[] = [];
        request.on('data', (chunk: Buffer) => chunks.push(chunk));
        request.on('end', () => {
          received.push({
            method: request.method!,
            path: request.url!,
            headers: request.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          });
          for (const waiter of waiters.filter((w) => received.length >= w.count)) waiter.resolve();
          const behaviour = receiver.script.shift() ?? receiver.otherwise;
          if (behaviour === 'hang') {
            hanging.add(response);
            return;
          }
          const answer = () => response.writeHead(behaviour.status, behaviour.headers ?? {}).end(behaviour.body ?? '');
          if (behaviour.delayMs) setTimeout(answer, behaviour.delayMs);
          else answer();
        });
      });
      server.on('connection', (socket) => {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
      });
      server.listen(port, '127.0.0.1', () => {
        port = (server.address() as AddressInfo).port;
        resolve();
      });
    });
  const shut = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      hanging.clear();
      server.close(() => resolve());
    });

  await listen();
  const receiver: Receiver = {
    url: `http://127.0.0.1:${port}/hook`,
    port,
    received,
    script: [],
    otherwise,
    waitFor(count, timeoutMs = 120_000) {
      if (received.length >= count) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`receiver got ${received.length} of ${count} requests`)), timeoutMs);
        waiters.push({
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        });
      });
    },
    down: shut,
    up: listen,
    close: shut,
  };
  return receiver;
}

/**
 * The receiver's side of E6's signature, written from the Standard Webhooks text, independently of
 * src/: true when one of the header's `v1,` entries is the HMAC-SHA256 of `id.timestamp.body` keyed
 * with the secret's decoded bytes.
 */
export function signatureVerifies(secret: string, request: ReceivedRequest): boolean {
  const id = String(request.headers['webhook-id']);
  const timestamp = String(request.headers['webhook-timestamp']);
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${request.body}`).digest();
  return String(request.headers['webhook-signature'])
    .split(' ')
    .some((entry) => {
      const [version, signature] = entry.split(',');
      const given = Buffer.from(signature ?? '', 'base64');
      return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
    });
}
