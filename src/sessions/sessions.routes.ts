import { Type } from 'typebox';
import { credentialOf, originOf } from '../auth/write-credential.js';
import type { Config } from '../config.js';
import type { App } from '../http/app-types.js';
import { callerOf } from '../auth/caller.js';
import { MessageResponse } from '../wire/schemas.js';
import { clearSessionCookie, setSessionCookie } from './session-cookie.js';
import { ChangePasswordBody, SessionResponse, SignInBody } from './sessions.schemas.js';
import type { SessionsService } from './sessions.service.js';

const PASSWORD_CHANGED = 'Password changed. Your other sessions have been signed out.';

/** E7: dashboard sign-in, the session, sign-out, and a user's own password. */
export async function sessionsRoutes(app: App, { sessionsService, config }: { sessionsService: SessionsService; config: Config }) {
  app.post('/session', {
    config: { sessionRoute: 'sign-in', hashesPassword: true },
    schema: {
      tags: ['sessions'],
      summary: 'Sign in to the dashboard with email and password; sets the session cookie',
      body: SignInBody,
      response: { 201: SessionResponse },
    },
    handler: async (request, reply) => {
      const { secret, session } = await sessionsService.signIn(request.body, originOf(request));
      setSessionCookie(reply, request, config.publicUrl, secret, new Date(session.expires_at));
      return reply.code(201).send({ data: session });
    },
  });

  app.get('/session', {
    config: { sessionRoute: 'signed-in' },
    schema: {
      tags: ['sessions'],
      summary: "The dashboard session of the request's cookie, with its CSRF token",
      response: { 200: SessionResponse },
    },
    handler: async (request) => {
      return { data: await sessionsService.describe(callerOf(request)) };
    },
  });

  app.delete('/session', {
    config: { sessionRoute: 'signed-in' },
    schema: {
      tags: ['sessions'],
      summary: 'Sign out: ends the session and clears its cookie',
      response: { 204: Type.Null({ description: 'Signed out; no body.' }) },
    },
    handler: async (request, reply) => {
      await sessionsService.signOut(callerOf(request));
      clearSessionCookie(reply, request, config.publicUrl);
      return reply.code(204).send(null);
    },
  });

  app.put('/user/password', {
    config: { ability: 'admin', hashesPassword: true },
    schema: {
      tags: ['user'],
      summary: "Change the caller's dashboard password; ends their other sessions",
      body: ChangePasswordBody,
      response: { 200: MessageResponse },
    },
    handler: async (request) => {
      await sessionsService.changePassword(credentialOf(request), callerOf(request), request.body);
      return { message: PASSWORD_CHANGED };
    },
  });
}
