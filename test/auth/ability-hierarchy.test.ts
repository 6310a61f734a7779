import { describe, expect } from 'vitest';
import { sharedAppTest } from '../helpers/app-fixture.js';
import type { Ability } from '../../src/auth/abilities.js';
import { expectError, missingAbility } from '../helpers/contract.js';
import { ENDPOINTS, snapshot } from '../helpers/endpoints.js';

const it = sharedAppTest();

const rank: Record<Ability, number> = { read: 0, write: 1, admin: 2 };

// api-v1 5.3 and D6: admin includes write, which includes read; a token lacking the ability gets 403.
describe('ability hierarchy on every endpoint (D6)', () => {
  for (const endpoint of ENDPOINTS) {
    for (const granted of ['read', 'write', 'admin'] as const) {
      const allowed = rank[granted] >= rank[endpoint.ability];
      const expectation = allowed ? `answers ${endpoint.success}` : `answers 403 (needs '${endpoint.ability}')`;

      it(`${endpoint.name} with a ["${granted}"] token ${expectation}`, async ({ ctx }) => {
        const user = await ctx.given.user({ abilities: [granted] });
        const request = await endpoint.prepare(ctx, user);
        const before = await snapshot(ctx);

        const response = await ctx.request({ ...request, token: user.token });

        if (allowed) {
          expect(response.statusCode, response.body).toBe(endpoint.success);
        } else {
          expectError(response, 403, missingAbility(endpoint.ability));
          expect(await snapshot(ctx)).toEqual(before);
        }
      });
    }
  }

  it('a token with several abilities is judged by its strongest one', async ({ ctx }) => {
    const user = await ctx.given.user({ abilities: ['read', 'write'] });
    const created = await ctx.request({
      method: 'POST',
      url: '/api/v1/projects',
      token: user.token,
      body: { name: 'Both', framework_version: '10' },
    });
    expect(created.statusCode).toBe(201);
    const tokens = await ctx.request({
      method: 'POST',
      url: '/api/v1/tokens',
      token: user.token,
      body: { name: 'x', abilities: ['read'] },
    });
    expectError(tokens, 403, missingAbility('admin'));
  });
});
