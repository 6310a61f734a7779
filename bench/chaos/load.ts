import { request } from 'node:http';

/** One answer to a request of the run, or the lack of one. */
export interface Answer {
  /** The instance asked ("a", "b"). */
  instance: string;
  /** When it was sent and when it ended, in ms since the start of the scenario. */
  sentAt: number;
  endedAt: number;
  /** The HTTP status, or null when the request ended without one (`error` says how). */
  status: number | null;
  /** `ECONNRESET`, `ECONNREFUSED`, `no answer in 30 s`, … */
  error: string | null;
  /** The body is the JSON error envelope `{error, message}` (for answers that are not 2xx). */
  enveloped: boolean;
  retryAfter: boolean;
  /** The stored report's uuid, from a 2xx upload answer. */
  uuid: string | null;
}

/** How long a request may go unanswered before the run gives up on it (and counts it). */
export const CLIENT_TIMEOUT_MS = 30_000;

/**
 * Sends one request with a connection of its own (no keep-alive: a reused socket's close races
 * would be the client's, not the service's) and says what came back.
 */
export function send(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: Buffer; instance: string; clock: () => number },
): Promise<Answer> {
  const sentAt = options.clock();
  return new Promise((resolve) => {
    let settled = false;
    const done = (fields: Partial<Answer>) => {
      if (settled) return;
      settled = true;
      resolve({
        instance: options.instance,
        sentAt,
        endedAt: options.clock(),
        status: null,
        error: null,
        enveloped: false,
        retryAfter: false,
        uuid: null,
        ...fields,
      });
    };
    const outgoing = request(url, { method: options.method ?? 'GET', headers: options.headers, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', (error: NodeJS.ErrnoException) => done({ error: `${error.code ?? error.message} (mid-answer)` }));
      response.on('end', () => {
        const status = response.statusCode ?? 0;
        let body: unknown = null;
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          // not JSON: not enveloped
        }
        const record = (body ?? {}) as { error?: unknown; message?: unknown; report?: { uuid?: unknown } };
        done({
          status,
          enveloped: typeof record.error === 'string' && typeof record.message === 'string',
          retryAfter: response.headers['retry-after'] !== undefined,
          uuid: typeof record.report?.uuid === 'string' ? record.report.uuid : null,
        });
      });
    });
    outgoing.setTimeout(CLIENT_TIMEOUT_MS, () => {
      done({ error: `no answer in ${CLIENT_TIMEOUT_MS / 1000} s` });
      outgoing.destroy();
    });
    outgoing.on('error', (error: NodeJS.ErrnoException) => done({ error: error.code ?? error.message }));
    outgoing.end(options.body);
  });
}

/** Headers of the client package's upload (CLIENT-WIRE.md): Guzzle's user agent, JSON, the project's token. */
export function uploadHeaders(apiToken: string): Record<string, string> {
  return { 'user-agent': 'GuzzleHttp/7', 'content-type': 'application/json', authorization: `Bearer ${apiToken}` };
}

export interface Uploader {
  instance: string;
  url: string;
  apiToken: string;
  /** A new run's body each call. */
  next(): Buffer;
}

/**
 * Steady load: each uploader sends an upload, waits `paceMs` (after an answer that is not 2xx,
 * at least 250 ms, so an instance answering 503 at once is not hammered), and again, until stopped.
 * Every answer is kept. `pause(instance)` stops one instance's uploaders, as a balancer would.
 */
export class Load {
  readonly answers: Answer[] = [];
  private running = true;
  private readonly paused = new Set<string>();
  private readonly loops: Promise<void>[];
  /** Uploads sent and not yet ended, per instance. */
  private readonly sending = new Map<string, number>();

  constructor(
    uploaders: Uploader[],
    private readonly clock: () => number,
    paceMs: number,
  ) {
    this.loops = uploaders.map((uploader) => this.loop(uploader, paceMs));
  }

  pause(instance: string): void {
    this.paused.add(instance);
  }

  /** Uploads to `instance` that are on their way now. */
  inFlight(instance: string): number {
    return this.sending.get(instance) ?? 0;
  }

  /** Stops sending; resolves once every request sent has ended. */
  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }

  private async loop(uploader: Uploader, paceMs: number): Promise<void> {
    while (this.running && !this.paused.has(uploader.instance)) {
      this.sending.set(uploader.instance, this.inFlight(uploader.instance) + 1);
      const answer = await send(`${uploader.url}/api/reports`, {
        method: 'POST',
        headers: uploadHeaders(uploader.apiToken),
        body: uploader.next(),
        instance: uploader.instance,
        clock: this.clock,
      });
      this.sending.set(uploader.instance, this.inFlight(uploader.instance) - 1);
      this.answers.push(answer);
      const ok = answer.status !== null && answer.status >= 200 && answer.status < 300;
      await sleep(ok ? paceMs : Math.max(paceMs, 250));
    }
  }
}

/** `/readyz` of each instance, asked again 250 ms after each answer, each answer kept. */
export class ReadinessProbes {
  readonly answers: Answer[] = [];
  private running = true;
  private readonly forgotten = new Set<string>();
  private readonly loops: Promise<void>[];

  constructor(instances: { name: string; url: string }[], clock: () => number) {
    this.loops = instances.map(async ({ name, url }) => {
      while (this.running && !this.forgotten.has(name)) {
        this.answers.push(await send(`${url}/readyz`, { instance: name, clock }));
        await sleep(250);
      }
    });
  }

  /** Stops probing an instance that is being stopped or killed. */
  forget(instance: string): void {
    this.forgotten.add(instance);
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
