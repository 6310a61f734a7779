import { createHash } from 'node:crypto';
import type { Clock } from '../clock.js';
import type { OpenedConnection } from './connections.repository.js';
import type { ProviderFailure, ProviderHttp, ProviderTarget } from './provider-http.js';
import type { GitHubAppCredentials } from './providers.js';

/**
 * E10.5: a GitHub App acts on repositories as one of its installations, with a token GitHub mints
 * on request (`POST /app/installations/{id}/access_tokens`, authenticated by the app's JWT:
 * github-app-jwt.ts) and which expires an hour later. Each instance keeps the tokens it minted
 * until five minutes before they expire, so a burst of reports costs one mint, and a call never
 * starts with a token about to lapse. Two calls that need a token at once share one mint.
 *
 * A connection of any other provider is its own target, as it is.
 */

/** A token is used until this long before GitHub says it expires. */
export const TOKEN_MARGIN_MS = 5 * 60_000;
/** Tokens kept at most: one per installation in use, so a bound only against misuse. */
const CACHE_MAX = 1000;

export type TargetResult = { ok: true; target: ProviderTarget } | { ok: false; failure: ProviderFailure };

interface Minted {
  token: string;
  /** When to mint again (ms since the epoch, the service's clock). */
  renewAt: number;
}

export function createInstallationTokens(deps: { http: ProviderHttp; clock: Clock }) {
  const cache = new Map<string, Minted>();
  const minting = new Map<string, Promise<TargetResult>>();
  let minted = 0;

  /** The credentials and where they are used: a key or an installation changed is another entry. */
  const cacheKey = (connection: OpenedConnection) =>
    createHash('sha256')
      .update(JSON.stringify([connection.id, connection.base_url, connection.credentials]))
      .digest('hex');

  const asInstallation = (connection: OpenedConnection, token: string): ProviderTarget => ({
    provider: 'github',
    base_url: connection.base_url,
    credentials: { token },
  });

  async function mint(connection: OpenedConnection, key: string): Promise<TargetResult> {
    const { installation_id } = connection.credentials as GitHubAppCredentials;
    const result = await deps.http.request({
      connection,
      method: 'POST',
      path: `/app/installations/${encodeURIComponent(installation_id)}/access_tokens`,
    });
    if (!result.ok)
      return { ok: false, failure: { ...result.failure, message: `GitHub did not give the app a token: ${result.failure.message}` } };
    const answer = result.answer.json as { token?: unknown; expires_at?: unknown } | null;
    const expiresAt = typeof answer?.expires_at === 'string' ? Date.parse(answer.expires_at) : Number.NaN;
    if (typeof answer?.token !== 'string' || answer.token === '' || Number.isNaN(expiresAt)) {
      return { ok: false, failure: { kind: 'http', status: result.answer.status, message: "GitHub's answer held no installation token." } };
    }
    minted += 1;
    if (cache.size >= CACHE_MAX) cache.clear();
    cache.set(key, { token: answer.token, renewAt: expiresAt - TOKEN_MARGIN_MS });
    return { ok: true, target: asInstallation(connection, answer.token) };
  }

  return {
    /** Where a call to `connection`'s repositories goes, and with what: an installation's token for an app. */
    async targetFor(connection: OpenedConnection): Promise<TargetResult> {
      if (connection.provider !== 'github_app') return { ok: true, target: connection };
      const key = cacheKey(connection);
      const cached = cache.get(key);
      if (cached !== undefined && deps.clock.now().getTime() < cached.renewAt) {
        return { ok: true, target: asInstallation(connection, cached.token) };
      }
      const pending = minting.get(key);
      if (pending !== undefined) return pending;
      const started = mint(connection, key).finally(() => minting.delete(key));
      minting.set(key, started);
      return started;
    },

    /** How many tokens this instance has minted (for its tests and logs). */
    get minted() {
      return minted;
    },
  };
}

export type InstallationTokens = ReturnType<typeof createInstallationTokens>;
