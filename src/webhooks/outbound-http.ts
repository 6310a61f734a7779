import { promises as dns, type LookupAddress } from 'node:dns';
import { Agent as HttpAgent, type IncomingHttpHeaders, type IncomingMessage, request as httpRequest, type RequestOptions } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { addressRefusal, type AddressRefusal } from './network-policy.js';
import { webhookUrlProblem } from './webhook-url.js';

/**
 * E6: the HTTP client of webhook deliveries. A delivery is one POST to a URL a project's owner
 * chose, so this client is written for a hostile or broken receiver, and never throws for one:
 *
 * - Server-side request forgery: the address connected to is checked with network-policy.ts,
 *   after DNS resolution and at connect time, and the connection goes to the address checked, with
 *   no second lookup a rebinding DNS server could answer differently. Every address of the name
 *   must pass, so that a name cannot mix a public address with a private one.
 * - Redirects are not followed (a 3xx is the answer): a redirect would lead to a URL nobody checked.
 * - One deadline covers the whole exchange (connect, answer, body), and at most `maxResponseBytes`
 *   of the body is read: a receiver that trickles or floods holds nothing for long.
 *
 * Built on node:http/node:https rather than undici: no dependency is added (Node's bundled undici
 * does not expose its Agent), and an http.Agent calls the `lookup` option for each new connection,
 * which is exactly the hook the check needs; TLS stays Node's default, verifying the certificate
 * against the host name (sent as SNI). The one gap of that hook, that Node skips `lookup` for an IP
 * literal, is closed by checking IP-literal hosts before the request is made.
 */

/**
 * A delivery's result. `refused` marks a request never made because of where it would lead (E6's
 * address policy): D32 makes that final, and its `error` says what kind of address without saying
 * which (`detail`, with the address, is for the operator's log only).
 */
export type SendOutcome = { status: number; body: string } | { status: null; error: string; refused?: { detail: string } };

/** D32: the delivery error of a refused address, the same for every address of a kind. */
export function refusedAddressMessage(kind: string): string {
  return `The host resolves to ${kind}; set WEBHOOK_ALLOW_PRIVATE_NETWORKS=true to allow it.`;
}

/** A host's addresses, as `dns.promises.lookup(hostname, { all: true })` gives them. */
export type ResolveHost = (hostname: string) => Promise<readonly LookupAddress[]>;

export interface WebhookSenderOptions {
  /** WEBHOOK_ALLOW_PRIVATE_NETWORKS: lifts the address check, for self-hosted receivers and tests. */
  allowPrivateNetworks: boolean;
  /** The deadline of a whole exchange, in milliseconds. */
  timeoutMs?: number;
  /** The most of a response body read, in bytes. */
  maxResponseBytes?: number;
  /** Connections kept to one host and port at most. */
  maxSocketsPerHost?: number;
  /** Resolves host names instead of the system resolver (tests). */
  lookup?: ResolveHost;
}

export interface WebhookSender {
  /** POSTs `request.body` to `url`; a network problem or a refused address is an outcome, not an error. */
  send(url: string, request: { headers: Record<string, string>; body: string }): Promise<SendOutcome>;
  /** Closes every connection, idle or in use. */
  close(): Promise<void>;
}

export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_MAX_RESPONSE_BYTES = 65_536;
export const DEFAULT_MAX_SOCKETS_PER_HOST = 4;

/**
 * How long an idle kept-alive connection is kept. Shorter than the 5 s most servers (Node's among
 * them) keep an idle connection, so that a delivery seldom goes out on a connection the receiver
 * is closing at that moment (a reset nobody caused). A receiver's `Keep-Alive: timeout=N` hint,
 * which Node honours, can shorten it further.
 */
const IDLE_SOCKET_MS = 4_000;

/** A connection not made because of where it would lead (network-policy.ts). */
class RefusedAddress extends Error {
  constructor(readonly refusal: AddressRefusal) {
    super(refusal.detail);
  }
}

const refusedOutcome = (refusal: AddressRefusal): HttpOutcome & { status: null } => ({
  status: null,
  error: refusedAddressMessage(refusal.kind),
  refused: { detail: refusal.detail },
});

/**
 * One exchange's answer, as the general client gives it: `truncated` when the body reached the cap
 * and the rest was not read; `timedOut` marks the deadline among the failures.
 */
export type HttpOutcome =
  | { status: number; headers: IncomingHttpHeaders; body: string; truncated: boolean }
  | { status: null; error: string; timedOut?: true; refused?: { detail: string } };

/**
 * The same client for any method (E9.1's calls to a ticket provider go through it): the address
 * policy, the unfollowed redirects, the one deadline and the bounded body read are those of a
 * webhook delivery; only the method, the headers and the caps are the caller's.
 */
export interface OutboundHttp {
  request(url: string, request: { method: string; headers: Record<string, string>; body?: string }): Promise<HttpOutcome>;
  close(): Promise<void>;
}

export function createOutboundHttp(options: WebhookSenderOptions): OutboundHttp {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const agentOptions = { keepAlive: true, maxSockets: options.maxSocketsPerHost ?? DEFAULT_MAX_SOCKETS_PER_HOST, timeout: IDLE_SOCKET_MS };
  const httpAgent = new HttpAgent(agentOptions);
  const httpsAgent = new HttpsAgent(agentOptions);
  const lookup = checkedLookup(options.lookup ?? ((hostname) => dns.lookup(hostname, { all: true })), options.allowPrivateNetworks);
  let closed = false;

  return {
    async request(url, request) {
      if (closed) return { status: null, error: 'the HTTP client is closed' };
      const problem = webhookUrlProblem(url);
      if (problem !== null) return { status: null, error: problem };
      const target = new URL(url);
      // The WHATWG parser has already turned every IPv4 spelling (2130706433, 0x7f.1) into dotted
      // decimal and compressed IPv6; brackets are URL syntax, not part of the address.
      const host = target.hostname.startsWith('[') ? target.hostname.slice(1, -1) : target.hostname;
      if (isIP(host) !== 0 && !options.allowPrivateNetworks) {
        const refusal = addressRefusal(host);
        if (refusal !== null) return refusedOutcome(refusal);
      }
      const https = target.protocol === 'https:';
      const payload = request.body === undefined ? null : Buffer.from(request.body, 'utf8');
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(request.headers)) {
        if (name.toLowerCase() !== 'content-length') headers[name] = value;
      }
      if (payload !== null) headers['content-length'] = String(payload.byteLength);
      const requestOptions: RequestOptions = {
        agent: https ? httpsAgent : httpAgent,
        method: request.method,
        hostname: host,
        ...(target.port !== '' && { port: Number(target.port) }),
        path: `${target.pathname}${target.search}`,
        headers,
        lookup,
        // Node derives it from the Host header too; said here because the certificate check rests on it.
        ...(https && isIP(host) === 0 && { servername: host }),
      };
      return exchange(https, requestOptions, payload, timeoutMs, maxResponseBytes);
    },
    async close() {
      closed = true;
      httpAgent.destroy();
      httpsAgent.destroy();
    },
  };
}

export function createWebhookSender(options: WebhookSenderOptions): WebhookSender {
  const client = createOutboundHttp(options);
  return {
    async send(url, request) {
      const outcome = await client.request(url, { method: 'POST', headers: request.headers, body: request.body });
      if (outcome.status === null) {
        // A closed client's words were those of the webhook sender before the client was shared.
        const error = outcome.error === 'the HTTP client is closed' ? 'the webhook sender is closed' : outcome.error;
        return outcome.refused ? { status: null, error, refused: outcome.refused } : { status: null, error };
      }
      // A delivery keeps the first bytes of an answer too long, as the receiver's words.
      return { status: outcome.status, body: outcome.body };
    },
    close: () => client.close(),
  };
}

/** One request and its answer, settled once: by the answer, the byte cap, an error or the deadline. */
function exchange(
  https: boolean,
  requestOptions: RequestOptions,
  payload: Buffer | null,
  timeoutMs: number,
  maxBytes: number,
): Promise<HttpOutcome> {
  return new Promise<HttpOutcome>((resolve) => {
    let settled = false;
    const finish = (outcome: HttpOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      resolve(outcome);
    };
    const request = (https ? httpsRequest : httpRequest)(requestOptions);
    // Destroying the request destroys its socket, and with it a response being read.
    const deadline = setTimeout(() => {
      finish({ status: null, error: `timed out after ${duration(timeoutMs)}`, timedOut: true });
      request.destroy();
    }, timeoutMs);
    // The listeners stay after the outcome: a late error with no listener would crash the process.
    request.on('error', (error) => finish(outcomeOfError(error)));
    request.on('response', (response: IncomingMessage) => {
      const status = response.statusCode ?? 0;
      const headers = response.headers;
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        if (settled) return;
        chunks.push(chunk);
        size += chunk.byteLength;
        if (size >= maxBytes) {
          // Enough: the rest is not read, and the connection goes rather than being drained for reuse.
          // Exactly `maxBytes` that then ended is not known to be whole, so it counts as cut too.
          finish({ status, headers, body: Buffer.concat(chunks, size).subarray(0, maxBytes).toString('utf8'), truncated: true });
          response.destroy();
        }
      });
      response.on('end', () => finish({ status, headers, body: Buffer.concat(chunks, size).toString('utf8'), truncated: false }));
      response.on('error', (error) => finish({ status: null, error: describeError(error) }));
      response.on('close', () => finish({ status: null, error: 'connection closed before the response ended' }));
    });
    if (payload === null) request.end();
    else request.end(payload);
  });
}

/**
 * The `lookup` of every connection: resolves the host, refuses it when any of its addresses is
 * forbidden, and otherwise hands Node the addresses checked, which it connects to as they are. It
 * answers both forms Node asks for: all addresses (Happy Eyeballs, `autoSelectFamily`) or one.
 */
function checkedLookup(resolve: ResolveHost, allowPrivateNetworks: boolean): LookupFunction {
  return (hostname, lookupOptions, callback) => {
    const family = lookupOptions.family === 'IPv4' ? 4 : lookupOptions.family === 'IPv6' ? 6 : lookupOptions.family;
    resolve(hostname)
      .then((found) => {
        for (const { address } of found) {
          // The address is passed on to connect() verbatim, so it must be one Node reads as an address.
          if (isIP(address) === 0) throw new Error(`the lookup of ${hostname} gave "${address}", not an IP address`);
          const refusal = allowPrivateNetworks ? null : addressRefusal(address);
          if (refusal !== null) throw new RefusedAddress(refusal);
        }
        const addresses = found
          .map(({ address }) => ({ address, family: isIP(address) }))
          .filter((entry) => (family !== 4 && family !== 6 ? true : entry.family === family));
        if (addresses.length === 0) throw Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND', hostname });
        return addresses;
      })
      .then(
        (addresses) => (lookupOptions.all ? callback(null, addresses) : callback(null, addresses[0]!.address, addresses[0]!.family)),
        (error: NodeJS.ErrnoException) => callback(error, ''),
      );
  };
}

function outcomeOfError(error: unknown): HttpOutcome {
  const refused = error instanceof AggregateError ? error.errors.find((inner) => inner instanceof RefusedAddress) : error;
  if (refused instanceof RefusedAddress) return refusedOutcome(refused.refusal);
  return { status: null, error: describeError(error) };
}

/**
 * A short, clear reason for a failed exchange, for the delivery's `error`. It never names the
 * address connected to (D32): Node's own messages do ("connect ECONNREFUSED 10.0.0.7:80"), so only
 * the known codes are said in words, and any other connect failure by its code.
 */
function describeError(error: unknown): string {
  // Happy Eyeballs failing on every address gives an AggregateError: the first says enough.
  if (error instanceof AggregateError && error.errors.length > 0) return describeError(error.errors[0]);
  const failure = error as NodeJS.ErrnoException & { hostname?: string };
  switch (failure.code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
      return failure.message === 'socket hang up' ? 'connection closed without a response' : 'connection reset';
    case 'ENOTFOUND':
      return `host not found${failure.hostname ? `: ${failure.hostname}` : ''}`;
    case 'EAI_AGAIN':
      return `DNS lookup failed${failure.hostname ? ` for ${failure.hostname}` : ''} (temporary failure)`;
    case 'ETIMEDOUT':
      return 'connection timed out';
    case 'EHOSTUNREACH':
      return 'host unreachable';
    case 'ENETUNREACH':
      return 'network unreachable';
    case 'EPIPE':
      return 'connection closed while sending';
  }
  if (failure.syscall === 'connect' && typeof failure.code === 'string') return `connection failed (${failure.code})`;
  const message = failure.message || String(error);
  // Certificate and handshake failures: OpenSSL's codes (CERT_HAS_EXPIRED, ERR_TLS_CERT_ALTNAME_INVALID…).
  if (typeof failure.code === 'string' && /CERT|SSL|TLS/.test(failure.code)) return `TLS error: ${message}`.slice(0, 300);
  return message.slice(0, 300);
}

function duration(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
