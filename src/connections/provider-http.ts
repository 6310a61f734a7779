import type { IncomingHttpHeaders } from 'node:http';
import type { CallOutcome } from '../outbox/outbox-worker.js';
import { createOutboundHttp, type OutboundHttp, type ResolveHost } from '../webhooks/outbound-http.js';
import { type Credentials, credentialStrings, PROVIDER_SPECS, type Provider } from './providers.js';

/**
 * E9.1: the HTTP client every call to a provider goes through (a check here, tickets and their
 * comments elsewhere). It is E6's outbound client (webhooks/outbound-http.ts: address policy at
 * connect time, no redirects followed, one deadline, a bounded body read) with what a provider call
 * adds: any method, the provider's auth headers, JSON both ways, a larger but still bounded answer,
 * and Retry-After. A failure is a value, never a throw, and its message is the provider's own words
 * when it gave some, with every credential scrubbed out.
 */

/** What a call needs of a connection: where, and its credentials opened. */
export interface ProviderTarget {
  provider: Provider;
  base_url: string;
  credentials: Credentials;
}

export interface ProviderRequest {
  connection: ProviderTarget;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Appended to the connection's base_url; starts with `/`. */
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  /** Sent as JSON. */
  body?: unknown;
}

export interface ProviderAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  /** The body parsed as JSON, or null when it is not JSON (or empty). */
  json: unknown;
  text: string;
}

export type ProviderFailureKind = 'refused' | 'network' | 'timeout' | 'too-large' | 'http';

export interface ProviderFailure {
  kind: ProviderFailureKind;
  /** The provider's status (kind `http`, and `too-large` when a status came first). */
  status?: number;
  /** From Retry-After on a 429 or 503, in seconds. */
  retryAfterSeconds?: number;
  /** The provider's own error text when it gave one, else what went wrong; never a credential. */
  message: string;
}

export type ProviderResult = { ok: true; answer: ProviderAnswer } | { ok: false; failure: ProviderFailure };

export interface ProviderHttp {
  request(request: ProviderRequest): Promise<ProviderResult>;
  close(): Promise<void>;
}

export const PROVIDER_TIMEOUT_MS = 15_000;
/** 1 MiB: far more than any answer we read (a user, an issue), and still a bound. */
export const PROVIDER_MAX_RESPONSE_BYTES = 1_048_576;
export const USER_AGENT = 'Scoreboard (+https://github.com/scoreboard)';
const MESSAGE_MAX_LENGTH = 500;

export interface ProviderHttpOptions {
  /** WEBHOOK_ALLOW_PRIVATE_NETWORKS: lifts the address rules, as for webhooks. */
  allowPrivateNetworks: boolean;
  timeoutMs?: number;
  maxResponseBytes?: number;
  lookup?: ResolveHost;
  /** The service's clock: a GitHub App's token is signed at its time. */
  now?: () => Date;
}

export function createProviderHttp(options: ProviderHttpOptions): ProviderHttp {
  const client: OutboundHttp = createOutboundHttp({
    allowPrivateNetworks: options.allowPrivateNetworks,
    timeoutMs: options.timeoutMs ?? PROVIDER_TIMEOUT_MS,
    maxResponseBytes: options.maxResponseBytes ?? PROVIDER_MAX_RESPONSE_BYTES,
    ...(options.lookup && { lookup: options.lookup }),
  });
  return {
    async request({ connection, method, path, query, body }) {
      const secrets = credentialStrings(connection.provider, connection.credentials);
      const fail = (failure: ProviderFailure): ProviderResult => ({
        ok: false,
        failure: { ...failure, message: scrub(failure.message, secrets) },
      });
      const url = providerUrl(connection.base_url, path, query);
      const headers: Record<string, string> = {
        accept: 'application/json',
        'user-agent': USER_AGENT,
        ...(body !== undefined && { 'content-type': 'application/json' }),
        ...(await PROVIDER_SPECS[connection.provider].authHeaders(connection.credentials, options.now?.() ?? new Date())),
      };
      const outcome = await client.request(url, { method, headers, ...(body !== undefined && { body: JSON.stringify(body) }) });
      if (outcome.status === null) {
        if (outcome.refused) return fail({ kind: 'refused', message: outcome.error });
        return fail({ kind: outcome.timedOut ? 'timeout' : 'network', message: outcome.error });
      }
      if (outcome.truncated) {
        return fail({
          kind: 'too-large',
          status: outcome.status,
          message: `The provider's answer exceeded ${Math.round((options.maxResponseBytes ?? PROVIDER_MAX_RESPONSE_BYTES) / 1024)} KiB and was not read.`,
        });
      }
      const json = parseJson(outcome.body);
      // Linear (GraphQL) may answer 200 with errors and no data: a failure all the same.
      const graphQlFailed = outcome.status < 300 && connection.provider === 'linear' && hasGraphQlErrors(json);
      if (outcome.status >= 200 && outcome.status < 300 && !graphQlFailed) {
        return { ok: true, answer: { status: outcome.status, headers: outcome.headers, json, text: outcome.body } };
      }
      const retryAfter = outcome.status === 429 || outcome.status === 503 ? retryAfterSeconds(outcome.headers['retry-after']) : null;
      return fail({
        kind: 'http',
        status: outcome.status,
        ...(retryAfter !== null && { retryAfterSeconds: retryAfter }),
        message: providerMessage(json) ?? `The provider answered ${outcome.status}${reasonOf(outcome.status)}.`,
      });
    },
    close: () => client.close(),
  };
}

/** base_url + path + query; base_url is stored without a trailing slash. */
export function providerUrl(baseUrl: string, path: string, query?: ProviderRequest['query']): string {
  const url = `${baseUrl.replace(/\/+$/, '')}${path}`;
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) if (value !== undefined) params.append(name, String(value));
  const search = params.toString();
  return search === '' ? url : `${url}${url.includes('?') ? '&' : '?'}${search}`;
}

function parseJson(text: string): unknown {
  if (text.trim() === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function hasGraphQlErrors(json: unknown): boolean {
  const errors = (json as { errors?: unknown } | null)?.errors;
  return Array.isArray(errors) && errors.length > 0;
}

/**
 * The provider's own error text, from the shapes they document: GitHub, GitLab and Gitea
 * `{message}` (GitLab's may be an object of field errors, or `{error, error_description}` from
 * OAuth), Bitbucket `{error: {message, detail}}`, Jira `{errorMessages: [], errors: {field: text}}`,
 * GraphQL (Linear) `{errors: [{message}]}`.
 */
export function providerMessage(json: unknown): string | null {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) return null;
  const body = json as Record<string, unknown>;
  const parts: string[] = [];
  const add = (value: unknown) => {
    if (typeof value === 'string' && value.trim() !== '') parts.push(value.trim());
  };
  if (typeof body.message === 'string') add(body.message);
  else if (body.message !== null && typeof body.message === 'object') {
    for (const [name, value] of Object.entries(body.message as Record<string, unknown>)) {
      const texts = Array.isArray(value) ? value.filter((v) => typeof v === 'string') : typeof value === 'string' ? [value] : [];
      for (const text of texts) add(`${name} ${text}`);
    }
  }
  if (Array.isArray(body.errorMessages)) for (const text of body.errorMessages) add(text);
  if (Array.isArray(body.errors)) {
    for (const error of body.errors) add(typeof error === 'string' ? error : (error as { message?: unknown } | null)?.message);
  } else if (body.errors !== null && typeof body.errors === 'object') {
    for (const [name, text] of Object.entries(body.errors as Record<string, unknown>))
      if (typeof text === 'string') add(`${name}: ${text}`);
  }
  if (body.error !== null && typeof body.error === 'object') {
    const error = body.error as Record<string, unknown>;
    add(error.message);
    add(error.detail);
  } else if (parts.length === 0) {
    add(body.error_description);
    add(body.error);
  }
  return parts.length === 0 ? null : parts.join('; ').slice(0, MESSAGE_MAX_LENGTH);
}

/** Retry-After as seconds: its delta-seconds form, or an HTTP date from now; null when absent or unreadable. */
export function retryAfterSeconds(value: string | undefined, now = Date.now()): number | null {
  if (value === undefined) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text);
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}

function reasonOf(status: number): string {
  if (status === 401) return ' (the credentials were not accepted)';
  if (status === 403) return ' (the credentials lack a permission)';
  if (status === 404) return ' (not found: check the base URL)';
  if (status === 429) return ' (rate limited)';
  if (status >= 500) return ' (a provider error)';
  return '';
}

/** Whatever the provider echoed, a credential never leaves in a message. */
function scrub(message: string, secrets: readonly string[]): string {
  let text = message;
  for (const secret of secrets) if (secret.length >= 4) text = text.split(secret).join('[redacted]');
  return text.slice(0, MESSAGE_MAX_LENGTH);
}

/**
 * A provider call made from the outbox (outbox/outbox-worker.ts), as its outcome: a network error,
 * a timeout, a 5xx or a 429 may pass and is tried again (no sooner than Retry-After); a 4xx, an
 * address the network rules refuse, or a body too large to read after a failure status will not.
 * A 2xx whose body was too large still made the call: retrying it would make it twice.
 */
export function callOutcomeOf(result: ProviderResult): CallOutcome {
  if (result.ok) return { ok: true, status: result.answer.status };
  const { failure } = result;
  const status = failure.status ?? null;
  if (failure.kind === 'too-large' && status !== null && status >= 200 && status < 300) return { ok: true, status };
  const retry =
    failure.kind === 'network' ||
    failure.kind === 'timeout' ||
    (failure.kind === 'http' && status !== null && (status === 429 || status >= 500));
  return {
    ok: false,
    status,
    error: failure.message,
    retry,
    ...(failure.retryAfterSeconds !== undefined && { retryAfterSeconds: failure.retryAfterSeconds }),
  };
}
