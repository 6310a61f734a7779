import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy in front of a dependency (PostgreSQL, Redis) that a fault test can take down and
 * bring back without touching the shared server behind it: the app under test is given the
 * proxy's address (`rewrite(url)`), and the test decides what the wire does.
 *
 * - `down()`: the dependency stops: every proxied connection is cut (both sides destroyed, as when
 *   the server process dies) and the port stops listening, so new connections are refused at once
 *   (ECONNREFUSED), as for a stopped server.
 * - `hang()`: the dependency is gone the slow way (its host vanished): live connections are cut, new
 *   ones are accepted and then hear nothing, so clients wait for their own connect timeouts.
 * - `stall()`: a network partition: live connections stay open but nothing flows either way (new
 *   ones likewise) until `up()`, when everything held back is delivered, as TCP would once the
 *   partition heals.
 * - `blackhole()`: the link goes silent for good: live connections stay open and hear nothing, new
 *   ones are accepted and hear nothing. At `up()` the server's side of every such connection is
 *   closed (the server gave up on them meanwhile) while the client's side stays open and silent:
 *   only a client-side deadline or keepalive frees them. New connections after `up()` work.
 * - `delay(ms)`: every chunk, either way, is forwarded `ms` later (in order); `delay(0)` ends it.
 * - `up()`: forwards again, on the same port.
 * - `cutOnClientData(match)`: the next client message that `match` recognises is not forwarded and
 *   its connection is cut, e.g. the second statement of a transaction: the server saw the start of
 *   the transaction and never its end. With `{ forwardFirst: true }` the server gets the message
 *   (and runs it) and only the way back is cut, so the client never learns the outcome.
 */
export class TcpProxy {
  private server: Server | null = null;
  private readonly pairs = new Set<Pair>();
  private mode: 'forward' | 'hang' | 'stall' | 'blackhole' = 'forward';
  private delayMs = 0;
  private cut: { match: (chunk: Buffer) => boolean; forwardFirst: boolean; done: () => void } | null = null;
  /** Connections accepted so far (how often the client under test connected). */
  connections = 0;

  private constructor(
    private readonly target: { host: string; port: number },
    private listenPort: number,
  ) {}

  /** A proxy to `target`, listening on a free port of 127.0.0.1. */
  static async start(target: { host: string; port: number }): Promise<TcpProxy> {
    const proxy = new TcpProxy(target, 0);
    await proxy.listen();
    return proxy;
  }

  /** A proxy to the host and port of `url` (e.g. `postgres://u@127.0.0.1:5432/db`). */
  static async for(url: string, defaultPort: number): Promise<TcpProxy> {
    const parsed = new URL(url);
    return TcpProxy.start({ host: parsed.hostname || '127.0.0.1', port: Number(parsed.port || defaultPort) });
  }

  get port(): number {
    return this.listenPort;
  }

  /** `url` with its host and port replaced by the proxy's (user, database and options kept). */
  rewrite(url: string): string {
    const parsed = new URL(url);
    parsed.hostname = '127.0.0.1';
    parsed.port = String(this.listenPort);
    return parsed.toString();
  }

  async down(): Promise<void> {
    this.mode = 'forward';
    this.destroyAll();
    await this.closeListener();
  }

  async hang(): Promise<void> {
    this.mode = 'hang';
    this.destroyAll();
    if (this.server === null) await this.listen();
  }

  stall(): void {
    this.mode = 'stall';
    for (const { client, upstream } of this.pairs) {
      client.pause();
      upstream?.pause();
    }
  }

  blackhole(): void {
    this.mode = 'blackhole';
    for (const pair of this.pairs) {
      pair.lost = true;
      pair.client.pause();
      pair.upstream?.pause();
    }
  }

  delay(ms: number): void {
    this.delayMs = ms;
  }

  async up(): Promise<void> {
    this.mode = 'forward';
    for (const pair of this.pairs) {
      if (pair.lost) {
        pair.upstream?.destroy();
        pair.upstream = null;
      } else if (pair.upstream === null) {
        // Accepted while hanging: it never reached the server, the client must connect again.
        pair.client.destroy();
      } else {
        pair.client.resume();
        pair.upstream.resume();
      }
    }
    if (this.server === null) await this.listen();
  }

  /** Resolves once a client message matching `match` was seen and its connection cut (see the class comment). */
  cutOnClientData(match: (chunk: Buffer) => boolean, options: { forwardFirst?: boolean } = {}): Promise<void> {
    return new Promise((resolve) => {
      this.cut = { match, forwardFirst: options.forwardFirst ?? false, done: resolve };
    });
  }

  async close(): Promise<void> {
    this.cut = null;
    this.destroyAll();
    await this.closeListener();
  }

  private destroyAll(): void {
    for (const { client, upstream } of this.pairs) {
      client.destroy();
      upstream?.destroy();
    }
    this.pairs.clear();
  }

  private async closeListener(): Promise<void> {
    const server = this.server;
    if (server === null) return;
    this.server = null;
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private listen(): Promise<void> {
    const server = createServer((client) => this.accept(client));
    return new Promise((resolve, reject) => {
      server.once('error', (error: NodeJS.ErrnoException) => {
        // Listening on the same port again only fails if another process took it meanwhile.
        reject(new Error(`the proxy could not listen on port ${this.listenPort}: ${error.message}`));
      });
      server.listen(this.listenPort, '127.0.0.1', () => {
        this.listenPort = (server.address() as { port: number }).port;
        this.server = server;
        resolve();
      });
    });
  }

  private accept(client: Socket): void {
    this.connections += 1;
    client.on('error', () => {}); // a cut is the point; the client under test reports it
    if (this.mode === 'hang' || this.mode === 'blackhole') {
      const pair: Pair = { client, upstream: null, lost: this.mode === 'blackhole' };
      this.pairs.add(pair);
      client.on('close', () => this.pairs.delete(pair));
      return;
    }
    const upstream = connect(this.target.port, this.target.host);
    upstream.on('error', () => {});
    const pair: Pair = { client, upstream, lost: false };
    this.pairs.add(pair);
    const toServer = new DelayLine(() => this.delayMs, upstream);
    const toClient = new DelayLine(() => this.delayMs, client);
    if (this.mode === 'stall') {
      client.pause();
      upstream.pause();
    }

    let delivering = false;
    client.on('data', (chunk: Buffer) => {
      const cut = this.cut;
      if (cut?.match(chunk)) {
        this.cut = null;
        if (cut.forwardFirst) {
          // The server reads the message, then the end of the stream: it runs the one before
          // noticing the other. The client hears nothing back.
          delivering = true;
          upstream.end(chunk);
          client.destroy();
        } else {
          client.destroy();
          upstream.destroy();
        }
        cut.done();
        return;
      }
      if (!toServer.write(chunk)) client.pause();
    });
    upstream.on('data', (chunk: Buffer) => {
      if (client.destroyed) return;
      if (!toClient.write(chunk)) upstream.pause();
    });
    upstream.on('drain', () => {
      if (this.mode === 'forward' && !pair.lost) client.resume();
    });
    client.on('drain', () => {
      if (this.mode === 'forward' && !pair.lost) upstream.resume();
    });
    client.on('close', () => {
      if (!delivering) pair.upstream?.destroy();
      this.pairs.delete(pair);
    });
    upstream.on('close', () => {
      // A black-holed connection's client hears nothing, not even the end (see `blackhole()`).
      if (pair.lost) return;
      client.destroy();
      this.pairs.delete(pair);
    });
  }
}

interface Pair {
  client: Socket;
  upstream: Socket | null;
  /** Black-holed: never forwards again (see `blackhole()`). */
  lost: boolean;
}

/**
 * One direction of a proxied connection: writes at once while there is no delay, else holds each
 * chunk for the delay and writes them in order.
 */
class DelayLine {
  private readonly queue: { due: number; chunk: Buffer }[] = [];
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly delayMs: () => number,
    private readonly to: Socket,
  ) {}

  /** False when the receiving side is full (the sender should pause), as `Socket.write`. */
  write(chunk: Buffer): boolean {
    const delay = this.delayMs();
    if (delay === 0 && this.queue.length === 0) return this.to.write(chunk);
    this.queue.push({ due: Date.now() + delay, chunk });
    this.pump();
    return true;
  }

  private pump(): void {
    if (this.timer !== null) return;
    while (this.queue.length > 0 && this.queue[0]!.due <= Date.now()) {
      const { chunk } = this.queue.shift()!;
      if (!this.to.destroyed) this.to.write(chunk);
    }
    if (this.queue.length === 0) return;
    this.timer = setTimeout(
      () => {
        this.timer = null;
        this.pump();
      },
      Math.max(0, this.queue[0]!.due - Date.now()),
    );
    this.timer.unref();
  }
}
