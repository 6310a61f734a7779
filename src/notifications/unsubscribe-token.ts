import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Db } from '../db/database.js';
import { UNSUBSCRIBE_KINDS, type UnsubscribeKind } from './email-kinds.js';

/**
 * E11.3: the token of an unsubscribe link (RFC 8058), which is its only credential. It names whom
 * (a user's id, or an invited address) and which kind of email, and is signed with HMAC-SHA-256
 * under the key migration 0025 made: `base64url(JSON).base64url(MAC)`. A token whose MAC does not
 * match, or whose contents are not exactly what the service writes, is refused: a forged or
 * altered one turns nothing off. It does not expire: an old email's link must still work.
 */

export type Unsubscriber = { userId: number } | { email: string };
export interface UnsubscribeClaim {
  who: Unsubscriber;
  kind: UnsubscribeKind;
}

/** Far above any token the service writes (an address is at most 254 characters). */
const TOKEN_MAX = 1024;

function mac(key: Buffer, payload: string): Buffer {
  return createHmac('sha256', key).update(`scoreboard-unsubscribe:${payload}`).digest();
}

export function signUnsubscribe(key: Buffer, claim: UnsubscribeClaim): string {
  const body = 'userId' in claim.who ? { u: claim.who.userId, k: claim.kind } : { e: claim.who.email, k: claim.kind };
  const payload = Buffer.from(JSON.stringify(body)).toString('base64url');
  return `${payload}.${mac(key, payload).toString('base64url')}`;
}

/** The claim of a token the service signed, or null for anything else. */
export function verifyUnsubscribe(key: Buffer, token: string): UnsubscribeClaim | null {
  if (token.length > TOKEN_MAX) return null;
  const match = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (match === null) return null;
  const [, payload, signature] = match as unknown as [string, string, string];
  const given = Buffer.from(signature, 'base64url');
  const expected = mac(key, payload);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (typeof body !== 'object' || body === null) return null;
  const { u, e, k } = body as { u?: unknown; e?: unknown; k?: unknown };
  if (!(UNSUBSCRIBE_KINDS as readonly unknown[]).includes(k)) return null;
  const kind = k as UnsubscribeKind;
  if (kind === 'invitations') return typeof e === 'string' && u === undefined ? { who: { email: e }, kind } : null;
  return Number.isSafeInteger(u) && (u as number) > 0 && e === undefined ? { who: { userId: u as number }, kind } : null;
}

/**
 * The signing key, read once per process (it never changes): made at random by the first instance
 * that needs one; instances racing to make it all keep the one that was stored first.
 */
export function signingKeyReader(db: Db): () => Promise<Buffer> {
  let key: Promise<Buffer> | undefined;
  async function read(): Promise<Buffer> {
    await db
      .insertInto('notification_signing_keys')
      .values({ id: 1, secret: randomBytes(32).toString('base64url'), created_at: new Date().toISOString() })
      .onConflict((conflict) => conflict.column('id').doNothing())
      .execute();
    const row = await db.selectFrom('notification_signing_keys').select('secret').where('id', '=', 1).executeTakeFirstOrThrow();
    return Buffer.from(row.secret, 'base64url');
  }
  return () => {
    key ??= read().catch((error: unknown) => {
      key = undefined;
      throw error;
    });
    return key;
  };
}
