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
 * - `blackhole()`: the link goes silent for good, as behind a firewall or NAT that lost its state:
 *   live connections stay open but everything either side sends is dropped, forever (even after
 *   `up()`: only their owners' deadlines end them); new connections are accepted and held, and once
 *   `up()` is called they reach the server (a retransmitted SYN getting through).
 * - `delay(ms)`: a slow link: every chunk, either way, arrives `ms` late (in order). `up()` ends it.
 * - `up()`: forwards again, on the same port.
 * - `cutOnClientData(match)`: the next client message that `match` recognises is not forwarded and
 *   its connection is cut, e.g. the second statement of a transaction: the server saw the start of
 *   the transaction and never its end. With `{ forwardFirst: true }` the server gets the message
 *   (and runs it) and only the way back is cut, so the client never learns the outcome. With
 *   `{ reset: true }` the client's side is reset (a TCP RST: its next read fails with ECONNRESET, as
 *   when the server's host reboots) instead of closed.
 */
interface Pair {
  client: Socket;
  /** null: accepted while hanging, never connected to the server. */
  upstream: Socket | null;
  /** Black-holed: nothing it carries is delivered any more, either way. */
  dead: boolean;
}

export class TcpProxy {
  private server: Server | null = null;
  private readonly pairs = new Set<Pair>();
  private mode: 'forward' | 'hang' | 'stall' | 'blackhole' = 'forward';
  private delayMs = 0;
  private cut: { match: (chunk: Buffer) => boolean; forwardFirst: boolean; reset: boolean; done: () => void } | null = null;
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
    this.delayMs = 0;
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
      pair.dead = true;
      // Read and dropped: the senders' writes succeed and go nowhere.
      pair.client.resume();
      pair.upstream?.resume();
    }
  }

  delay(ms: number): void {
    this.delayMs = ms;
  }

  async up(): Promise<void> {
    this.mode = 'forward';
    this.delayMs = 0;
    for (const pair of this.pairs) {
      if (pair.dead) continue;
      if (pair.upstream === null) {
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
  cutOnClientData(match: (chunk: Buffer) => boolean, options: { forwardFirst?: boolean; reset?: boolean } = {}): Promise<void> {
    return new Promise((resolve) => {
      this.cut = { match, forwardFirst: options.forwardFirst ?? false, reset: options.reset ?? false, done: resolve };
    });
  }

  async close(): Promise<void> {
    this.cut = null;
    this.destroyAll();
    await this.closeListener();
  }

  /** `chunk` from `from` on to `to`: now (pausing `from` while `to` is full), or `delayMs` later. */
  private deliver(pair: Pair, chunk: Buffer, from: Socket, to: Socket): void {
    if (this.delayMs > 0) {
      setTimeout(() => {
        if (!pair.dead && !to.destroyed) to.write(chunk);
      }, this.delayMs);
      return;
    }
    if (!to.write(chunk)) from.pause();
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
    if (this.mode === 'hang') {
      const pair: Pair = { client, upstream: null, dead: false };
      this.pairs.add(pair);
      client.on('close', () => this.pairs.delete(pair));
      return;
    }
    const upstream = connect(this.target.port, this.target.host);
    upstream.on('error', () => {});
    const pair: Pair = { client, upstream, dead: false };
    this.pairs.add(pair);
    if (this.mode === 'stall' || this.mode === 'blackhole') {
      client.pause();
      upstream.pause();
    }

    let delivering = false;
    client.on('data', (chunk: Buffer) => {
      if (pair.dead) return;
      const cut = this.cut;
      if (cut?.match(chunk)) {
        this.cut = null;
        if (cut.forwardFirst) {
          // The server reads the message, then the end of the stream: it runs the one before
          // noticing the other. The client hears nothing back.
          delivering = true;
          upstream.end(chunk);
        } else {
          upstream.destroy();
        }
        if (cut.reset) client.resetAndDestroy();
        else client.destroy();
        cut.done();
        return;
      }
      this.deliver(pair, chunk, client, upstream);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (pair.dead || client.destroyed) return;
      this.deliver(pair, chunk, upstream, client);
    });
    upstream.on('drain', () => {
      if (this.mode === 'forward') client.resume();
    });
    client.on('drain', () => {
      if (this.mode === 'forward') upstream.resume();
    });
    client.on('close', () => {
      if (!delivering) upstream.destroy();
      this.pairs.delete(pair);
    });
    upstream.on('close', () => {
      client.destroy();
      this.pairs.delete(pair);
    });
  }
}
