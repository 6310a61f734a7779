// The `helmet` route option and its type are @fastify/helmet's; its hooks are replaced below.
import type { FastifyHelmetOptions } from '@fastify/helmet';
import helmet, { type HelmetOptions } from 'helmet';
import type { App } from './app-types.js';

/**
 * The API answers JSON to programs, never pages to browsers, so the policy is the strictest one:
 * nothing may be loaded from, framed by or referred to from an answer.
 */
const API_POLICY: FastifyHelmetOptions = {
  contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
  frameguard: { action: 'deny' },
  referrerPolicy: { policy: 'no-referrer' },
  crossOriginResourcePolicy: { policy: 'same-origin' },
  // One year, as helmet's default; browsers ignore it over plain HTTP, so it is harmless there.
  strictTransportSecurity: { maxAge: 31_536_000, includeSubDomains: true },
};

/**
 * E2.3: the public badges are images for other sites' pages (README renderers, dashboards), which
 * `Cross-Origin-Resource-Policy: same-origin` would make browsers refuse to load; everything else of
 * the API policy stays (`default-src 'none'` keeps an SVG opened on its own from running anything).
 */
export const CROSS_ORIGIN_IMAGE_POLICY = {
  crossOriginResourcePolicy: { policy: 'cross-origin' },
} as const satisfies FastifyHelmetOptions;

/**
 * The headers helmet sets for `policy`, as a plain map in helmet's order, computed by running helmet
 * itself once, so they cannot drift from it. Nothing in these policies depends on the request (no
 * CSP nonces).
 */
function helmetHeaders(policy: object): Readonly<Record<string, string>> {
  const headers: Record<string, string> = {};
  const response = {
    setHeader: (name: string, value: string) => void (headers[name.toLowerCase()] = String(value)),
    removeHeader: (name: string) => void delete headers[name.toLowerCase()],
  };
  // (helmet's ESM and CommonJS type declarations differ in name only.)
  helmet(policy as HelmetOptions)({} as never, response as never, () => {});
  return Object.freeze(headers);
}

/**
 * The API policy's headers: on every answer that passes through the request hooks (errors and
 * unknown routes included), and set by hand on the ones that skip every hook (a URL the router
 * cannot decode, `frameworkErrors` in app.ts; Node's client errors, client-errors.ts).
 */
export const API_SECURITY_HEADERS = helmetHeaders(API_POLICY);

/**
 * Sets the security headers on every answer that passes through the request hooks: the API policy,
 * or a route's own (its `helmet` option, merged over the API policy as @fastify/helmet does).
 * @fastify/helmet built helmet's middleware anew for every request, in two async hooks (about 5 % of
 * a token list request in the benchmark's profile); the policies never depend on the request, so
 * each route's headers are computed once, when the route is added. (Node's http server sets no
 * `X-Powered-By`, the one header helmet removes.)
 */
export async function registerSecurityHeaders(app: App): Promise<void> {
  const byPolicy = new Map<object, Readonly<Record<string, string>>>();
  app.addHook('onRoute', (route) => {
    const own = route.helmet;
    if (own === undefined) return;
    if (own === false) throw new Error(`${String(route.method)} ${route.url}: every answer carries security headers`);
    let headers = byPolicy.get(own);
    if (!headers) {
      headers = helmetHeaders({ ...API_POLICY, ...own });
      byPolicy.set(own, headers);
    }
    route.config = { ...route.config, securityHeaders: headers };
  });
  app.addHook('onRequest', (request, reply, done) => {
    const headers = request.routeOptions.config.securityHeaders ?? API_SECURITY_HEADERS;
    const raw = reply.raw;
    for (const name in headers) raw.setHeader(name, headers[name]!);
    done();
  });
}

/**
 * The one page the service serves, `/docs` (Swagger UI), needs its own scripts, styles, images and
 * the OpenAPI document, all from this origin: no CDN, no remote host, no inline script. Swagger UI
 * sets inline `style` attributes, hence `'unsafe-inline'` for styles only.
 */
export const DOCS_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * E7: the dashboard's pages (dashboard/dashboard.routes.ts) load the app's scripts, styles and
 * images and call the API, all on this origin; no inline script or style (the app sets styles
 * through the DOM, which the policy allows), no plugin, no framing, forms post only here.
 */
export const DASHBOARD_CONTENT_SECURITY_POLICY = {
  defaultSrc: ["'self'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'"],
  imgSrc: ["'self'", 'data:'],
  connectSrc: ["'self'"],
  fontSrc: ["'self'"],
  objectSrc: ["'none'"],
  baseUri: ["'none'"],
  formAction: ["'self'"],
  frameAncestors: ["'none'"],
};
