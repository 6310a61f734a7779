import { probeTokens } from './heavy-reports.js';

/**
 * D30's scenario: 40 wrong sign-ins run at once without pause, each with an email and an address of
 * its own (the service trusts X-Forwarded-For here), so neither D8's per-address budget nor D29's
 * per-email lock stops them before their password is hashed. Meanwhile another user's
 * `GET /api/v1/tokens` must keep D28's p99. The sign-ins' 401, 429 and 503 are expected answers;
 * only the other user's failures, and any other status, are errors.
 */
export interface SignInStormOptions {
  url: string;
  /** The other user's personal token. */
  otherToken: string;
  signIns: number;
  durationMs: number;
  tokensEveryMs: number;
}

export interface SignInStormResult {
  /** Sign-ins whose password was judged (401). */
  judged: number;
  /** Sign-ins the hashing lane refused (503, D30). */
  refusedBusy: number;
  /** Sign-ins refused by a rate limit or lock (429). */
  refusedLimit: number;
  tokens: { count: number; p50: number; p99: number; max: number; failed: number };
  errors: string[];
}

export async function runSignInStorm(options: SignInStormOptions): Promise<SignInStormResult> {
  const { url } = options;
  const stopAt = Date.now() + options.durationMs;
  const counts = { judged: 0, refusedBusy: 0, refusedLimit: 0 };
  const errors: string[] = [];
  let sequence = 0;

  const signIn = async (): Promise<void> => {
    sequence += 1;
    const n = sequence;
    const response = await fetch(`${url}/api/v1/session`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-forwarded-for': `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`,
      },
      body: JSON.stringify({ email: `storm${n}@example.com`, password: 'not the password, at all' }),
    });
    await response.arrayBuffer();
    if (response.status === 401) counts.judged += 1;
    else if (response.status === 503) counts.refusedBusy += 1;
    else if (response.status === 429) counts.refusedLimit += 1;
    else errors.push(`sign-in ${response.status}`);
  };
  const storm = Array.from({ length: options.signIns }, async () => {
    while (Date.now() < stopAt) await signIn().catch((error: Error) => void errors.push(`sign-in ${error.message}`));
  });

  const probed = probeTokens({ url, token: options.otherToken, everyMs: options.tokensEveryMs, durationMs: options.durationMs });
  const [{ latencies, failed }] = await Promise.all([probed, ...storm]);
  if (failed > 0) errors.push(`${failed} of the other user's requests failed`);

  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.ceil(q * latencies.length) - 1)] ?? Number.NaN;
  return {
    ...counts,
    tokens: { count: latencies.length, p50: at(0.5), p99: at(0.99), max: latencies.at(-1) ?? Number.NaN, failed },
    errors,
  };
}
