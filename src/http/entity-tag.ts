import { createHash } from 'node:crypto';

/**
 * A strong entity tag (RFC 9110 8.8.3) for a body: the quoted SHA-256 of its bytes, base64url. The
 * same body gives the same tag on every instance, so a cache revalidating against any of them gets
 * its 304.
 */
export function strongEntityTag(body: string | Buffer): string {
  return `"${createHash('sha256').update(body).digest('base64url')}"`;
}

/**
 * RFC 9110 13.1.2: whether an `If-None-Match` field names the current representation, whose tag is
 * `entityTag` — then a GET or HEAD answers 304. `*` matches any current representation; otherwise the
 * field is a comma-separated list of entity tags, compared weakly (`W/"x"` matches `"x"`). A tag may
 * itself contain commas, so the list is read tag by tag, not split. Repeated fields reach us joined
 * by commas, which reads the same. A field that is not a valid list matches nothing.
 */
export function ifNoneMatchMatches(field: string | string[] | undefined, entityTag: string): boolean {
  if (field === undefined) return false;
  const value = (Array.isArray(field) ? field.join(',') : field).trim();
  if (value === '*') return true;
  const opaque = opaqueTag(entityTag);
  for (const match of value.matchAll(ENTITY_TAG)) {
    if (match[1] === opaque) return true;
  }
  return false;
}

/** One entity tag of a list: optional `W/`, then the quoted opaque tag (RFC 9110 8.8.3 `etagc`). */
const ENTITY_TAG = /(?:W\/)?("[\x21\x23-\x7e\x80-\xff]*")/g;

function opaqueTag(entityTag: string): string {
  return entityTag.startsWith('W/') ? entityTag.slice(2) : entityTag;
}
