import type { FastifyInstance } from 'fastify';

/**
 * Fastify answers an unsupported method on a known path like an unknown path. D5 wants 405 with an
 * `Allow` header there, so we remember every route's path pattern and methods and match the
 * concrete path against them in the not-found handler.
 */
export function trackRouteMethods(app: FastifyInstance): (path: string) => string[] {
  const routes: { pattern: RegExp; methods: Set<string> }[] = [];
  app.addHook('onRoute', (route) => {
    const pattern = new RegExp(`^${route.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z_][A-Za-z0-9_]*/g, '[^/]+')}/?$`);
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const existing = routes.find((r) => r.pattern.source === pattern.source);
    if (existing) for (const m of methods) existing.methods.add(m);
    else routes.push({ pattern, methods: new Set(methods) });
  });
  return (path) => {
    const allowed = new Set<string>();
    for (const route of routes) if (route.pattern.test(path)) for (const m of route.methods) allowed.add(m);
    return [...allowed].sort();
  };
}
