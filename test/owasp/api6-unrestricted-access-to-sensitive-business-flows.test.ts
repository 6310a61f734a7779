/**
 * OWASP API Security Top 10 (2023), API6: Unrestricted Access to Sensitive Business Flows.
 *
 * The flows worth automating against this service are minting credentials (personal access tokens,
 * project API tokens) and filling its storage (projects, uploads). Each is bounded:
 * - personal access tokens: at most 10 live per user, 403 beyond (D9; the count, its concurrency
 *   and its interplay with revocation are in test/tokens/token-limit.test.ts);
 * - every /api/v1 flow of a user, whichever token drives it, shares the user's budget of D8
 *   (120 a minute on Solo Dev): rotating a project token or creating projects in a loop is cut off;
 * - uploads: per project, UPLOAD_RATE_LIMIT a minute (test/client-api/client-rate-limit.test.ts).
 */
import { describe, expect } from 'vitest';
import { it } from '../helpers/app-fixture.js';
import { TOKEN_LIMIT, expectError, expectTooManyRequests, sha256 } from '../helpers/contract.js';
import { clientCall } from '../helpers/client-wire.js';

describe('API6 credential minting is bounded', () => {
  it("stops a loop rotating a project API token after the user's 120 requests of the minute (429)", async ({ ctx, user }) => {
    const { project, apiToken: first } = await ctx.given.project(user, { name: 'Rotated' });
    const issued: string[] = [first];
    let refused = 0;
    for (let i = 0; i < 130; i++) {
      const response = await ctx.request({ method: 'POST', url: `/api/v1/projects/${project.id}/regenerate-token`, token: user.token });
      if (response.statusCode === 200) issued.push(response.json().api_token);
      else {
        expectTooManyRequests(response);
        refused += 1;
      }
    }
    expect(issued).toHaveLength(1 + 120);
    expect(refused).toBe(10);
    // Exactly the last token issued works; none of the rotated-away ones does.
    const stored = await ctx.db.selectFrom('projects').select('api_token_hash').where('id', '=', project.id).executeTakeFirstOrThrow();
    expect(stored.api_token_hash).toBe(sha256(issued.at(-1)!));
    for (const old of [issued[0]!, issued[60]!, issued.at(-2)!]) {
      expect((await clientCall(ctx, old, undefined, { url: '/api/token/verify' })).statusCode).toBe(401);
    }

    // The next window gives the budget back, no more.
    ctx.clock.advance(60_000);
    expect(
      (await ctx.request({ method: 'POST', url: `/api/v1/projects/${project.id}/regenerate-token`, token: user.token })).statusCode,
    ).toBe(200);
  });

  it('shares one budget across every token of the user and every flow: projects, rotations, new tokens', async ({ ctx, user }) => {
    // A second and a third token of the same user: more tokens do not mean more requests (D8).
    const tokens = [user.token, await ctx.given.token(user, { name: 'second' }), await ctx.given.token(user, { name: 'third' })];
    const { project } = await ctx.given.project(user, { name: 'Shared' });
    const flows = [
      (token: string) => ctx.request({ method: 'POST', url: '/api/v1/projects', token, body: { name: 'Spam', framework_version: '11' } }),
      (token: string) => ctx.request({ method: 'POST', url: `/api/v1/projects/${project.id}/regenerate-token`, token }),
      (token: string) => ctx.request({ method: 'POST', url: '/api/v1/tokens', token, body: { name: 'minted', abilities: ['read'] } }),
    ];
    const statuses: number[] = [];
    for (let i = 0; i < 126; i++) statuses.push((await flows[i % 3]!(tokens[i % 3]!)).statusCode);

    expect(statuses.filter((s) => s === 429)).toHaveLength(6);
    expect(statuses.slice(120).every((s) => s === 429)).toBe(true);
    // Only what was answered with success exists: 40 projects (+1), the token count stopped at its own cap.
    const projects = await ctx.db.selectFrom('projects').select('id').where('team_id', '=', user.teamId!).execute();
    expect(projects).toHaveLength(1 + statuses.filter((s, i) => i % 3 === 0 && s === 201).length);
    expect(statuses.filter((s, i) => i % 3 === 0 && s === 201)).toHaveLength(40);
    const minted = statuses.filter((_s, i) => i % 3 === 2);
    expect(minted.filter((s) => s === 201)).toHaveLength(10 - 3);
    const live = await ctx.db.selectFrom('personal_access_tokens').select('id').where('user_id', '=', user.id).execute();
    expect(live).toHaveLength(10);
  });

  it("refuses the 11th personal access token with 403, whichever of the user's tokens asks (D9)", async ({ ctx, user }) => {
    const others: string[] = [];
    for (let i = 0; i < 9; i++) others.push(await ctx.given.token(user, { name: `t${i}` }));
    for (const token of [user.token, others.at(-1)!]) {
      expectError(
        await ctx.request({ method: 'POST', url: '/api/v1/tokens', token, body: { name: 'x', abilities: ['read'] } }),
        403,
        TOKEN_LIMIT,
      );
    }
    expect(await ctx.db.selectFrom('personal_access_tokens').select('id').where('user_id', '=', user.id).execute()).toHaveLength(10);
  });
});
