import { Type } from 'typebox';
import type { App } from '../http/app-types.js';
import { ifNoneMatchMatches, strongEntityTag } from '../http/entity-tag.js';
import { rejectInvalidHost } from '../http/host-header.js';
import { CROSS_ORIGIN_IMAGE_POLICY } from '../http/security-headers.js';
import type { ApplyRateLimit } from '../rate-limit/api-rate-limit.js';
import { BADGE_CACHE_HEADERS, BadgeParams, ShieldsEndpoint } from './badges.schemas.js';
import { BADGE_FILES, type BadgeFile, type BadgesService } from './badges.service.js';

/** E2.3: shared caches may keep a badge five minutes, then revalidate it with its ETag. */
const CACHE_CONTROL = 'max-age=300';

const SVG = (summary: string) => ({
  description: summary,
  content: { 'image/svg+xml': { schema: Type.String({ description: "An SVG image in shields.io's flat style." }) } },
  headers: BADGE_CACHE_HEADERS,
});

/** What each file is, for the OpenAPI document. */
const SUCCESS: Record<BadgeFile, { summary: string; response: object }> = {
  'score.svg': { summary: "The latest report's score as a badge (SVG)", response: SVG('The score badge: `score | 87`, or `none`.') },
  'gate.svg': {
    summary: "The latest report's quality gate as a badge (SVG)",
    response: SVG('The gate badge: `gate | passed`, `failed` or `none`.'),
  },
  'score.json': {
    summary: "The latest report's score in shields.io's endpoint format",
    response: { ...ShieldsEndpoint, headers: BADGE_CACHE_HEADERS },
  },
};

/**
 * E2.3, under `/badges/{key}/`: no token, the badge key is the only credential. Order of checks:
 * count the request against the key's budget (429), the Host header (D24, 400), then 404 for a key
 * no project has; a matching `If-None-Match` answers 304 without a body.
 */
export async function publicBadgeRoutes(app: App, deps: { badgesService: BadgesService; applyRateLimit: ApplyRateLimit }) {
  const { badgesService: badges } = deps;

  app.addHook('onRequest', async (request, reply) => {
    await deps.applyRateLimit(request, reply);
    rejectInvalidHost(request);
  });

  for (const file of BADGE_FILES) {
    app.get(`/:key/${file}`, {
      config: { publicBadge: true },
      helmet: CROSS_ORIGIN_IMAGE_POLICY,
      schema: {
        tags: ['badges'],
        summary: SUCCESS[file].summary,
        params: BadgeParams,
        response: {
          200: SUCCESS[file].response,
          // No body at all (not even `null`): typed `undefined` so that the handler sends none.
          304: Type.Unsafe<undefined>({
            type: 'null',
            description: 'Not Modified: `If-None-Match` names the current badge.',
            headers: BADGE_CACHE_HEADERS,
          }),
        },
      },
      handler: async (request, reply) => {
        const { body, contentType } = await badges.render(request.params.key, file);
        const entityTag = strongEntityTag(body);
        reply.header('cache-control', CACHE_CONTROL).header('etag', entityTag);
        // RFC 9110 13.1.2 and 15.4.5: the 304 carries the ETag and Cache-Control a 200 would, no body.
        if (ifNoneMatchMatches(request.headers['if-none-match'], entityTag)) return reply.code(304).send();
        return reply.type(contentType).send(body);
      },
    });
  }
}
