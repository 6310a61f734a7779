import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The webhook receiver of a chaos run, on 127.0.0.1: counts each `webhook-id` (E6: the same on every
 * attempt of one delivery) and answers 204 after `delayMs`, which a scenario may change.
 */
export interface Receiver {
  url: string;
  /** How often each delivery id arrived. */
  readonly seen: Map<string, number>;
  /** The senders' ports of the requests being answered right now (received, answer not yet sent). */
  inFlight(): number[];
  delayMs: number;
  close(): Promise<void>;
}

export async function startReceiver(delayMs: number): Promise<Receiver> {
  const seen = new Map<string, number>();
  const open = new Set<number>();
  const server: Server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const id = String(request.headers['webhook-id'] ?? '');
      seen.set(id, (seen.get(id) ?? 0) + 1);
      const port = request.socket.remotePort ?? 0;
      open.add(port);
      setTimeout(() => {
        open.delete(port);
        response.writeHead(204).end();
      }, receiver.delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const receiver: Receiver = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    seen,
    inFlight: () => [...open],
    delayMs,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return receiver;
}
