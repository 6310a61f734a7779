import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A provider stand-in on 127.0.0.1 for the tests (E9): routes answer JSON as the provider's
 * documentation says; every request is recorded; a script of next answers overrides the routes for
 * failure tests (a status and body, a hang, or a body of N bytes). One file per provider
 * (github.ts, gitlab.ts, ...) adds that provider's routes; a test may add its own with `route`.
 */
export interface StandInRequest {
  method: string;
  /** The path without the query. */
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: string;
  /** The body parsed as JSON, or undefined. */
  json: unknown;
  /** Captures of a RegExp route, in order. */
  params: string[];
}

export interface StandInAnswer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** A route's answer; a promise when the answer needs asynchronous work (a JWT verified with jose, say). */
export type Handler = (request: StandInRequest) => StandInAnswer | Promise<StandInAnswer>;

/**
 * A scripted answer: a status with a JSON (or raw text) body, never answering, `bytes` of body, or
 * `pass`: the routes answer this one (so a failure can be scripted for the third request of a series).
 */
export type Scripted =
  | { status: number; body?: unknown; rawBody?: string; headers?: Record<string, string> }
  | 'hang'
  | 'pass'
  | { huge: number; status?: number };

export interface StandIn {
  url: string;
  /** Every request received, oldest first. */
  received: StandInRequest[];
  /** Answers for the next requests, in order, before any route. */
  script: Scripted[];
  route(method: string, path: string | RegExp, handler: Handler): void;
  close(): Promise<void>;
}

export async function startStandIn(): Promise<StandIn> {
  const routes: { method: string; path: string | RegExp; handler: Handler }[] = [];
  const received: StandInRequest[] = [];
  const sockets = new Set<Socket>();
  const hanging = new Set<ServerResponse>();

  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const url = new URL(request.url!, 'http://stand-in');
      const body = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      try {
        json = body === '' ? undefined : JSON.parse(body);
      } catch {
        json = undefined;
      }
      const recorded: StandInRequest = {
        method: request.method!,
        path: url.pathname,
        query: url.searchParams,
        headers: request.headers,
        body,
        json,
        params: [],
      };
      received.push(recorded);
      const next = standIn.script.shift();
      const scripted = next === 'pass' ? undefined : next;
      if (scripted === 'hang') {
        hanging.add(response);
        return;
      }
      if (scripted && 'huge' in scripted) return sendHuge(response, scripted.huge, scripted.status ?? 200);
      if (scripted) {
        const text = scripted.rawBody ?? (scripted.body === undefined ? '' : JSON.stringify(scripted.body));
        response.writeHead(scripted.status, { 'content-type': 'application/json', ...scripted.headers }).end(text);
        return;
      }
      for (const route of [...routes].reverse()) {
        if (route.method !== request.method) continue;
        const params =
          typeof route.path === 'string' ? (route.path === url.pathname ? [] : null) : url.pathname.match(route.path)?.slice(1);
        if (params === null || params === undefined) continue;
        recorded.params = params.map((param) => decodeURIComponent(param ?? ''));
        void answerWith(route.handler, recorded).then((answer) => {
          // The client may have gone (a timeout test) while an asynchronous handler worked.
          if (response.destroyed) return;
          const text = answer.body === undefined ? '' : JSON.stringify(answer.body);
          response.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers }).end(text);
        });
        return;
      }
      response.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ message: 'Not Found' }));
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const standIn: StandIn = {
    url: `http://127.0.0.1:${port}`,
    received,
    script: [],
    route(method, path, handler) {
      routes.push({ method, path, handler });
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        hanging.clear();
        server.close(() => resolve());
      }),
  };
  return standIn;
}

/** The handler's answer, or a 500 naming what went wrong when it threw or its promise failed. */
async function answerWith(handler: Handler, request: StandInRequest): Promise<StandInAnswer> {
  try {
    return await handler(request);
  } catch (error) {
    return { status: 500, body: { message: `stand-in handler failed: ${(error as Error).message}` } };
  }
}

/** A JSON-looking body of `bytes` bytes, written in chunks as the socket drains, so that the stand-in holds little of it. */
function sendHuge(response: ServerResponse, bytes: number, status: number): void {
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': String(bytes) });
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  let sent = 0;
  const write = () => {
    while (sent < bytes) {
      const size = Math.min(chunk.byteLength, bytes - sent);
      sent += size;
      if (!response.write(size === chunk.byteLength ? chunk : chunk.subarray(0, size))) {
        response.once('drain', write);
        return;
      }
    }
    response.end();
  };
  response.on('close', () => {
    sent = bytes;
  });
  write();
}

/** The 401 a stand-in gives when the auth header is not exactly as documented. */
export function unauthorized(body: unknown): StandInAnswer {
  return { status: 401, body };
}
