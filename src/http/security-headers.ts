import fastifyHelmet, { type FastifyHelmetOptions } from '@fastify/helmet';
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
 * `@fastify/helmet` sets the headers on every answer that passes through the request hooks (errors
 * and unknown routes included) and removes `X-Powered-By`.
 */
export async function registerSecurityHeaders(app: App): Promise<void> {
  await app.register(fastifyHelmet, API_POLICY);
}

/**
 * The same headers as a plain map, for the one answer that skips every hook: a URL the router cannot
 * decode (`frameworkErrors` in app.ts). Computed once by running helmet itself, so it cannot drift.
 */
export const API_SECURITY_HEADERS: Readonly<Record<string, string>> = (() => {
  const headers: Record<string, string> = {};
  const response = {
    setHeader: (name: string, value: string) => void (headers[name.toLowerCase()] = String(value)),
    removeHeader: (name: string) => void delete headers[name.toLowerCase()],
  };
  // (helmet's ESM and CommonJS type declarations differ in name only.)
  helmet(API_POLICY as HelmetOptions)({} as never, response as never, () => {});
  return Object.freeze(headers);
})();

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
