import fastifyStatic from '@fastify/static';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ApiError } from '../wire/api-error.js';
import type { App } from '../http/app-types.js';
import { DASHBOARD_CONTENT_SECURITY_POLICY } from '../http/security-headers.js';
import { DASHBOARD_PAGES } from './dashboard-pages.js';

/** Where `npm run build` puts the app (Vite, web/vite.config.ts): two levels up from src/dashboard/ and dist/dashboard/ alike. */
export const DEFAULT_DASHBOARD_ROOT = fileURLToPath(new URL('../../dist/web/', import.meta.url));

/** Vite names every asset by a hash of its content, so a browser may keep one for good. */
const ASSET_CACHE_CONTROL = 'public, max-age=31536000, immutable';

const notBuilt = () =>
  new ApiError(
    503,
    'Service Unavailable',
    'The dashboard was not built: run `npm run build` (or `npm install`), then restart the service.',
  );

/**
 * E7: the dashboard, a single-page application served by the same process. Its hashed assets under
 * `/assets/`, and its `index.html` for every page of DASHBOARD_PAGES, revalidated on each load so
 * that a new build reaches browsers at once. Every other path keeps its JSON 404.
 */
export async function dashboardRoutes(app: App, options: { root?: string }) {
  const root = options.root ?? DEFAULT_DASHBOARD_ROOT;
  const indexFile = join(root, 'index.html');
  // Read once: the build does not change under a running service.
  const indexHtml = existsSync(indexFile) ? readFileSync(indexFile) : null;
  if (indexHtml === null) app.log.warn({ root }, 'The dashboard was not built: its pages answer 503 until `npm run build` has run.');

  const assets = join(root, 'assets');
  if (existsSync(assets)) {
    await app.register(fastifyStatic, {
      root: assets,
      prefix: '/assets/',
      index: false,
      decorateReply: false,
      cacheControl: false,
      setHeaders: (response) => response.setHeader('cache-control', ASSET_CACHE_CONTROL),
    });
  }

  for (const path of Object.values(DASHBOARD_PAGES)) {
    app.get(path, {
      schema: { hide: true },
      // The pages' own policy replaces the API's `default-src 'none'`: the app's scripts, styles and
      // API calls, all from this origin, and nothing inline.
      helmet: { contentSecurityPolicy: { useDefaults: false, directives: DASHBOARD_CONTENT_SECURITY_POLICY } },
      handler: async (_request, reply) => {
        if (indexHtml === null) throw notBuilt();
        return reply.header('cache-control', 'no-cache').type('text/html; charset=utf-8').send(indexHtml);
      },
    });
  }
}
