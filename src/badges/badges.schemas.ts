import { Type, type Static } from 'typebox';
import { BADGE_COLORS } from './badge-content.js';

/** E2.2: the absolute URLs of a project's public badges (built like D16's links). */
export const BadgeUrls = Type.Object(
  {
    score_svg: Type.String({ description: 'The score badge (SVG), for a README image.' }),
    gate_svg: Type.String({ description: "The latest report's quality gate (SVG): passed, failed or none." }),
    score_json: Type.String({ description: "The score in shields.io's endpoint format, for `img.shields.io/endpoint?url=...`." }),
  },
  { $id: 'BadgeUrls', description: 'Anyone with these URLs can see the badge data; regenerate the key to revoke them.' },
);
export type BadgeUrls = Static<typeof BadgeUrls>;

export const BadgeUrlsResponse = Type.Object({ data: BadgeUrls });

export const BadgeParams = Type.Object({
  key: Type.String({ description: "The project's badge key. A key no project has is a 404." }),
});

/** Caching (E2.3): shared caches and proxies may keep a badge five minutes, and revalidate it with its ETag. */
export const BADGE_CACHE_HEADERS = {
  'Cache-Control': { type: 'string', const: 'max-age=300', required: true, description: 'Five minutes.' },
  ETag: { type: 'string', required: true, description: 'A strong entity tag of the body; send it back in `If-None-Match` for a 304.' },
};

/** shields.io's endpoint badge (https://shields.io/badges/endpoint-badge). */
export const ShieldsEndpoint = Type.Object(
  {
    schemaVersion: Type.Literal(1),
    label: Type.String(),
    message: Type.String({ description: 'The score, or `none` without a report.' }),
    color: Type.Unsafe<string>({ type: 'string', enum: Object.keys(BADGE_COLORS) }),
  },
  { $id: 'ShieldsEndpoint' },
);
