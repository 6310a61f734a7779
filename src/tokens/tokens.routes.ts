import { credentialOf } from '../auth/write-credential.js';
import type { App } from '../http/app-types.js';
import { callerOf } from '../auth/caller.js';
import { MessageResponse } from '../wire/schemas.js';
import { CreateTokenBody, CreateTokenResponse, TokenListResponse, TokenParams } from './tokens.schemas.js';
import type { TokensService } from './tokens.service.js';

// D18: fixed success messages.
const CREATED = 'Token created successfully. Save the token — it will only be shown once.';
const REVOKED = 'Token revoked successfully.';

/** Personal access tokens. D7: no subscription needed, so a lapsed user can still revoke a leak. */
export async function tokensRoutes(app: App, { tokensService }: { tokensService: TokensService }) {
  app.get('/tokens', {
    config: { ability: 'read' },
    schema: {
      tags: ['tokens'],
      summary: "List the caller's personal access tokens, newest first",
      response: { 200: TokenListResponse },
    },
    handler: async (request) => ({ data: await tokensService.listTokens(callerOf(request).userId) }),
  });

  app.post('/tokens', {
    config: { ability: 'admin', forbiddenWhen: ['the user already has 10 tokens'] },
    schema: {
      tags: ['tokens'],
      summary: 'Create a personal access token',
      body: CreateTokenBody,
      response: { 201: CreateTokenResponse },
    },
    // D4 step 8: the 10-token limit answers before the body is validated.
    preValidation: async (request) => tokensService.assertBelowTokenLimit(callerOf(request).userId),
    handler: async (request, reply) => {
      const { name, abilities, expires_at } = request.body;
      const expiresAt = tokensService.parseRequestedExpiry(expires_at);
      const { token, plainText } = await tokensService.createToken(
        callerOf(request).userId,
        { name, abilities, expiresAt },
        { enforceLimit: true, credential: credentialOf(request) },
      );
      return reply.code(201).send({ token, plain_text_token: plainText, message: CREATED });
    },
  });

  app.delete('/tokens/:token', {
    config: { ability: 'admin' },
    schema: {
      tags: ['tokens'],
      summary: 'Revoke a personal access token',
      params: TokenParams,
      response: { 200: MessageResponse },
    },
    handler: async (request) => {
      await tokensService.revokeToken(credentialOf(request), request.params.token);
      return { message: REVOKED };
    },
  });
}
