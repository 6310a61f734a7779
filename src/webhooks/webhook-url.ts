import { isIP } from 'node:net';
import { addressRefusal } from './network-policy.js';

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

/**
 * D32: without WEBHOOK_ALLOW_PRIVATE_NETWORKS, a URL whose host can only lead to a refused
 * address (an IP literal in a refused range, or `localhost` and the names under it, which RFC 6761
 * reserves for loopback) is refused when the webhook is made, as the message of a 422 on `url`,
 * rather than accepted and failed at every delivery. A name is judged at delivery only: what it
 * resolves to may change. Null when the host is not known to be refused.
 */
export function webhookHostProblem(url: string): string | null {
  const kind = refusedHostKind(new URL(url));
  return kind === null ? null : `The url must not point to ${kind}; set WEBHOOK_ALLOW_PRIVATE_NETWORKS=true to allow it.`;
}

function refusedHostKind(url: URL): string | null {
  // The WHATWG parser has lower-cased the name and turned every IPv4 spelling into dotted decimal.
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const name = host.endsWith('.') ? host.slice(0, -1) : host;
  if (name === 'localhost' || name.endsWith('.localhost')) return 'a loopback address';
  return isIP(host) === 0 ? null : (addressRefusal(host)?.kind ?? null);
}
