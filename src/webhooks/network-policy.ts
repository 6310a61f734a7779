import ipaddr from 'ipaddr.js';

/**
 * E6: the addresses a webhook delivery may connect to. A webhook URL is chosen by a project's
 * owner, so without this rule the service would make requests into its own network for them
 * (server-side request forgery): cloud metadata at 169.254.169.254, an admin port on loopback, a
 * database on a private address. Parsing and range tables come from ipaddr.js (the library behind
 * Fastify's proxy-addr), not from hand-written parsing.
 *
 * The rule is an allow-list: an address is allowed only when ipaddr.js calls it plain `unicast` or
 * names one of the few globally routed special ranges below. Any range not known here (including
 * one a later ipaddr.js adds) is refused rather than let through.
 */

/** What each forbidden range is, as the end of "X is …" (never naming an address). Keys are ipaddr.js range names. */
const FORBIDDEN_RANGES: Readonly<Record<string, string>> = {
  loopback: 'a loopback address',
  private: 'a private address',
  linkLocal: 'a link-local address',
  carrierGradeNat: 'a shared (CGNAT) address',
  uniqueLocal: 'a unique-local address',
  multicast: 'a multicast address',
  unspecified: 'an unspecified address',
  broadcast: 'the broadcast address',
  // IPv4: IETF protocol assignments, documentation, benchmarking, the old 6to4 relay anycast and
  // 240/4; IPv6: IETF protocol assignments and documentation. None is a public receiver.
  reserved: 'a reserved (documentation or special-purpose) address',
  benchmarking: 'a benchmarking address',
  deprecatedSiteLocal: 'a site-local address',
  discard: 'a discard-only address',
  deprecatedOrchid: 'an ORCHID identifier, not a routable address',
  orchid2: 'an ORCHID identifier, not a routable address',
  droneRemoteIdProtocolEntityTags: 'a DRIP entity tag, not a routable address',
  segmentRouting: 'a segment-routing identifier, not a routable address',
};

/** Globally routed anycast services (AS112 DNS sinks, AMT relays): harmless to connect to. */
const ALLOWED_SPECIAL_RANGES = new Set(['unicast', 'as112', 'as112v6', 'amt']);

// NAT64's well-known prefix carries the IPv4 address in its last 32 bits (RFC 6052); its local-use
// sibling 64:ff9b:1::/48 (RFC 8215) may place it elsewhere and only ever reaches the local network.
const NAT64_WELL_KNOWN = ipaddr.IPv6.parseCIDR('64:ff9b::/96');

/**
 * Why `address` must not be connected to, in two forms, or null when it may be:
 * - `kind`, what sort of address it is ("a loopback address"), the only part a user is shown (D32:
 *   saying where a name resolved to would let any user map the internal network with webhooks);
 * - `detail`, with the address itself ("127.0.0.1 is a loopback address"), for the operator's log.
 */
export interface AddressRefusal {
  kind: string;
  detail: string;
}

/**
 * `address` is an IPv4 or IPv6 address in any form ipaddr.js parses (brackets and an IPv6 zone are
 * accepted); anything else is refused, so a caller can never pass an unchecked name on. IPv6
 * addresses that carry an IPv4 address (IPv4-mapped, IPv4-compatible, IPv4-translated, NAT64,
 * 6to4, Teredo) are judged by that IPv4 address too: connecting to them reaches it.
 */
export function addressRefusal(address: string): AddressRefusal | null {
  const text = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (!ipaddr.isValid(text)) return { kind: 'an invalid address', detail: `${address} is not an IP address` };
  const ip = ipaddr.parse(text);
  return ip instanceof ipaddr.IPv4 ? ipv4Refusal(address, ip) : ipv6Refusal(address, ip);
}

/** The operator's form of `addressRefusal`, e.g. "127.0.0.1 is a loopback address", or null. */
export function forbiddenAddressReason(address: string): string | null {
  return addressRefusal(address)?.detail ?? null;
}

function ipv4Kind(ip: ipaddr.IPv4): string | null {
  const range = ip.range();
  if (ALLOWED_SPECIAL_RANGES.has(range)) return null;
  return FORBIDDEN_RANGES[range] ?? `a special-purpose (${range}) address`;
}

function ipv4Refusal(address: string, ip: ipaddr.IPv4): AddressRefusal | null {
  const kind = ipv4Kind(ip);
  return kind === null ? null : { kind, detail: `${address} is ${kind}` };
}

function ipv6Refusal(address: string, ip: ipaddr.IPv6): AddressRefusal | null {
  const embedded = embeddedIpv4(ip);
  if (embedded !== null) {
    for (const ipv4 of embedded.addresses) {
      const kind = ipv4Kind(ipv4);
      if (kind !== null) return { kind, detail: `${address} embeds ${ipv4.toString()} (${embedded.kind}), which is ${kind}` };
    }
    return null;
  }
  const range = ip.range();
  if (ALLOWED_SPECIAL_RANGES.has(range)) return null;
  const kind = range === 'rfc6052' ? 'a local-use NAT64 address' : (FORBIDDEN_RANGES[range] ?? `a special-purpose (${range}) address`);
  return { kind, detail: `${address} is ${kind}` };
}

/**
 * The IPv4 addresses an IPv6 address leads to, or null when it carries none. `::` and `::1` are
 * not IPv4-compatible addresses but themselves (ipaddr.js names them unspecified and loopback).
 */
function embeddedIpv4(ip: ipaddr.IPv6): { kind: string; addresses: ipaddr.IPv4[] } | null {
  const [p0, p1, p2, p3, p4, p5, p6, p7] = ip.parts as [number, number, number, number, number, number, number, number];
  const fromWords = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
  const range = ip.range();
  switch (range) {
    case 'ipv4Mapped':
      return { kind: 'IPv4-mapped', addresses: [fromWords(p6, p7)] };
    case 'rfc6145':
      return { kind: 'IPv4-translated', addresses: [fromWords(p6, p7)] };
    case 'rfc6052':
      return ip.match(NAT64_WELL_KNOWN) ? { kind: 'NAT64', addresses: [fromWords(p6, p7)] } : null;
    case '6to4':
      return { kind: '6to4', addresses: [fromWords(p1, p2)] };
    case 'teredo':
      // The Teredo server's address, and the client's (stored inverted): traffic reaches both.
      return { kind: 'Teredo', addresses: [fromWords(p2, p3), fromWords(p6 ^ 0xffff, p7 ^ 0xffff)] };
    case 'unspecified':
    case 'loopback':
      return null;
  }
  // The deprecated IPv4-compatible form ::a.b.c.d (RFC 4291 2.5.5.1).
  if (p0 === 0 && p1 === 0 && p2 === 0 && p3 === 0 && p4 === 0 && p5 === 0) {
    return { kind: 'IPv4-compatible', addresses: [fromWords(p6, p7)] };
  }
  return null;
}
