import type { FastifyReply, FastifyRequest } from 'fastify';
import { isWellFormedSessionSecret } from './session-secret.js';

/**
 * E7: the session cookie. Over HTTPS it is `__Host-scoreboard_session` with `Secure` (the prefix
 * makes browsers refuse it unless it is Secure, for this host only and `Path=/`); over plain HTTP
 * (a local install) `scoreboard_session`. Both are `HttpOnly` (no script reads them) and
 * `SameSite=Lax` (other sites' forms and scripts do not send them).
 */
export const SESSION_COOKIE = 'scoreboard_session';
export const SECURE_SESSION_COOKIE = '__Host-scoreboard_session';

/**
 * Whether the browser reached us over HTTPS: the request's own protocol (behind a proxy only with
 * TRUST_PROXY, D8), or a PUBLIC_URL that says so (a proxy that ends TLS without TRUST_PROXY).
 */
export function servedOverHttps(request: FastifyRequest, publicUrl: string | undefined): boolean {
  return request.protocol === 'https' || publicUrl?.startsWith('https://') === true;
}

export function sessionCookieName(secure: boolean): string {
  return secure ? SECURE_SESSION_COOKIE : SESSION_COOKIE;
}

/** The session secret the request's cookie carries, or null (no cookie, or not of a secret's shape). */
export function sessionSecretOf(request: FastifyRequest, publicUrl: string | undefined): string | null {
  const value = request.cookies?.[sessionCookieName(servedOverHttps(request, publicUrl))];
  return value !== undefined && isWellFormedSessionSecret(value) ? value : null;
}

export function setSessionCookie(
  reply: FastifyReply,
  request: FastifyRequest,
  publicUrl: string | undefined,
  secret: string,
  expiresAt: Date,
): void {
  const secure = servedOverHttps(request, publicUrl);
  reply.setCookie(sessionCookieName(secure), secret, { path: '/', httpOnly: true, sameSite: 'lax', secure, expires: expiresAt });
}

export function clearSessionCookie(reply: FastifyReply, request: FastifyRequest, publicUrl: string | undefined): void {
  const secure = servedOverHttps(request, publicUrl);
  reply.clearCookie(sessionCookieName(secure), { path: '/', httpOnly: true, sameSite: 'lax', secure });
}
