/** The longest webhook URL accepted, in characters: the common limit of browsers and proxies. */
export const WEBHOOK_URL_MAX_LENGTH = 2048;

/**
 * E6: what is wrong with a webhook URL given to create or update a webhook, as the message of a
 * 422 field error, or null when it is acceptable. Only its form is checked here: where the host
 * leads is decided at each delivery, after DNS resolution (network-policy.ts, outbound-http.ts),
 * since a name that resolves to a public address today may resolve to a private one tomorrow.
 */
export function webhookUrlProblem(url: string): string | null {
  if (url.length > WEBHOOK_URL_MAX_LENGTH) return `The url must be at most ${WEBHOOK_URL_MAX_LENGTH} characters long.`;
  // The WHATWG parser silently drops tabs and line breaks and trims spaces and controls: the URL
  // stored and shown to the project's members would not be the one requested.
  if (/[\u0000-\u0020\u007f]/.test(url)) return 'The url must not contain spaces or control characters.';
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'The url must be an absolute http or https URL.';
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return 'The url must be an http or https URL.';
  // The parser already refuses http(s) without a host; kept so that the rule does not rest on it.
  if (parsed.hostname === '') return 'The url must have a host.';
  // Credentials in a URL end up in logs and delivery lists; a receiver authenticates the request by
  // its signature instead.
  if (parsed.username !== '' || parsed.password !== '') return 'The url must not contain a user name or password.';
  return null;
}
