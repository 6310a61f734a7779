/**
 * E4, the caller: `GET /user` (read), `PUT /user` (write; `{name}` required, max 255, D12) and
 * `PUT /user/current-team` (write; a team the caller is a member of, else 404). `/user*` has no D7:
 * a user without an active subscription still sees and changes their profile.
 */
import { describe, expect } from 'vitest';
import { teamsTest as it } from './teams-world.js';
import { expectApiHeaders, expectError, missingAbility, NOT_FOUND, UNAUTHENTICATED } from '../helpers/contract.js';
import {
  currentTeamOf,
  expectFieldError,
  expectNoEvent,
  expectOneEvent,
  ISO_UTC,
  lastEventId,
  NAME_REQUIRED,
  NAME_TOO_LONG,
  sharedTeam,
  expectCreatesProjectIn,
} from './teams-world.js';

describe('GET /api/v1/user', () => {
  it("answers the caller's profile: id, name, email, current team and creation time, nothing more", async ({ ctx, api }) => {
    const user = await ctx.given.user({ name: 'Ada Lovelace', email: 'ada@example.com' });
    const response = await api.profile(user.token);
    expect(response.statusCode, response.body).toBe(200);
    expectApiHeaders(response);
    const body = response.json();
    expect(body).toEqual({
      data: {
        id: user.id,
        name: 'Ada Lovelace',
        email: 'ada@example.com',
        current_team_id: user.teamId,
        created_at: expect.stringMatching(ISO_UTC),
      },
    });
  });

  it('answers a user with no team and no name with nulls', async ({ ctx, api }) => {
    const user = await ctx.given.user({ withTeam: false });
    const body = (await api.profile(user.token)).json();
    expect(body.data.current_team_id).toBeNull();
    expect(body.data.name).toBeNull();
    expect(body.data.email).toBe(user.email);
  });

  it('is open to a read-only token and to a user without a subscription (no D7 on /user)', async ({ ctx, api }) => {
    const lapsed = await ctx.given.user({ plan: null, abilities: ['read'] });
    const response = await api.profile(lapsed.token);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().data.id).toBe(lapsed.id);
  });

  it('answers 401 without a token', async ({ ctx }) => {
    expectError(await ctx.request({ method: 'GET', url: '/api/v1/user', remoteAddress: '10.1.0.1' }), 401, UNAUTHENTICATED);
  });
});

describe('PUT /api/v1/user', () => {
  it('changes the name, answers the profile, and writes one user.updated event with the old and new name', async ({ ctx, api }) => {
    const user = await ctx.given.user({ name: 'Old Name' });
    const since = await lastEventId(ctx);
    const response = await api.updateProfile(user.token, { name: 'New Name' });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({
      data: { id: user.id, name: 'New Name', email: user.email, current_team_id: user.teamId, created_at: expect.stringMatching(ISO_UTC) },
    });
    expect((await api.profile(user.token)).json().data.name).toBe('New Name');
    const event = await expectOneEvent(ctx, since, {
      action: 'user.updated',
      actor: user,
      teamId: null,
      target: { type: 'user', id: user.id },
    });
    expect(event.details).toMatchObject({ name: { old: 'Old Name', new: 'New Name' } });
  });

  it('trims the name (D12) and ignores unknown fields such as email and current_team_id (D5)', async ({ ctx, api }) => {
    const user = await ctx.given.user({ name: 'Before' });
    const response = await api.updateProfile(user.token, {
      name: '  Grace Hopper  ',
      email: 'hijack@example.com',
      current_team_id: 999,
      id: 5,
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().data).toMatchObject({ id: user.id, name: 'Grace Hopper', email: user.email, current_team_id: user.teamId });
  });

  it('counts characters, not bytes: 255 emoji pass, 256 letters do not', async ({ ctx, api }) => {
    const user = await ctx.given.user();
    const emoji = '😀'.repeat(255);
    const ok = await api.updateProfile(user.token, { name: emoji });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().data.name).toBe(emoji);
    expectFieldError(await api.updateProfile(user.token, { name: 'a'.repeat(256) }), 'name', NAME_TOO_LONG);
  });

  it.for([
    ['a missing name', {}],
    ['an empty name', { name: '' }],
    ['a name of spaces', { name: '   ' }],
  ])('answers 422 `name` required for %s, and changes nothing', async ([_case, body], { ctx, api }) => {
    const user = await ctx.given.user({ name: 'Kept' });
    const since = await lastEventId(ctx);
    expectFieldError(await api.updateProfile(user.token, body), 'name', NAME_REQUIRED);
    expect((await api.profile(user.token)).json().data.name).toBe('Kept');
    await expectNoEvent(ctx, since);
  });

  it.for([
    ['a number', 12345],
    ['an array', ['Ada']],
    ['an object', { first: 'Ada' }],
    ['a boolean', true],
    ['null', null],
  ])('answers 422 `name` for %s (D12: no coercion)', async ([_case, name], { ctx, api }) => {
    const user = await ctx.given.user({ name: 'Kept' });
    expectFieldError(await api.updateProfile(user.token, { name }), 'name');
    expect((await api.profile(user.token)).json().data.name).toBe('Kept');
  });

  it('needs the write ability (D6): a read-only token gets 403 before the body is looked at', async ({ ctx, api }) => {
    const user = await ctx.given.user({ abilities: ['read'], name: 'Kept' });
    expectError(await api.updateProfile(user.token, { name: 'Changed' }), 403, missingAbility('write'));
    expectError(await api.updateProfile(user.token, { name: '' }), 403, missingAbility('write'));
    expect((await api.profile(user.token)).json().data.name).toBe('Kept');
  });

  it('works without a subscription (no D7 on /user)', async ({ ctx, api }) => {
    const lapsed = await ctx.given.user({ plan: null });
    const response = await api.updateProfile(lapsed.token, { name: 'Still me' });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().data.name).toBe('Still me');
  });

  it('answers 400 to malformed JSON (D4 step 6 before step 9)', async ({ ctx }) => {
    const user = await ctx.given.user();
    const response = await ctx.request({ method: 'PUT', url: '/api/v1/user', token: user.token, body: '{"name": ' });
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toBe('Bad Request');
  });
});

describe('PUT /api/v1/user/current-team', () => {
  it('switches to a team the caller is a member of, answers the profile, and writes one user.updated event', async ({ ctx, api }) => {
    const team = await sharedTeam(ctx);
    const user = await ctx.given.user();
    await ctx.given.member(team.id, user, 'readonly', { makeCurrent: false });
    const since = await lastEventId(ctx);
    const response = await api.switchTeam(user.token, { team_id: team.id });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({
      data: { id: user.id, name: null, email: user.email, current_team_id: team.id, created_at: expect.stringMatching(ISO_UTC) },
    });
    expect(await currentTeamOf(ctx, user.id)).toBe(team.id);
    const event = await expectOneEvent(ctx, since, { action: 'user.updated', actor: user, teamId: null });
    expect(event.details).toMatchObject({ current_team_id: { old: user.teamId, new: team.id } });

    // And back to the personal team.
    const back = await api.switchTeam(user.token, { team_id: user.teamId });
    expect(back.statusCode, back.body).toBe(200);
    expect(back.json().data.current_team_id).toBe(user.teamId);
  });

  it('makes the new team the one POST /projects creates in and GET /projects lists (D15)', async ({ ctx, api }) => {
    const team = await sharedTeam(ctx);
    const user = await ctx.given.user();
    await ctx.given.member(team.id, user, 'member', { makeCurrent: false });
    expect((await api.switchTeam(user.token, { team_id: team.id })).statusCode).toBe(200);
    await expectCreatesProjectIn(ctx, user, team.id, 'Here');
  });

  it('answers 404 for a team the caller is not a member of, and for one that does not exist; the current team stays', async ({
    ctx,
    api,
  }) => {
    const other = await sharedTeam(ctx);
    const user = await ctx.given.user();
    const since = await lastEventId(ctx);
    expectError(await api.switchTeam(user.token, { team_id: other.id }), 404, NOT_FOUND);
    expectError(await api.switchTeam(user.token, { team_id: 2_000_000_000 }), 404, NOT_FOUND);
    expect(await currentTeamOf(ctx, user.id)).toBe(user.teamId);
    await expectNoEvent(ctx, since);
  });

  it.for([
    ['a missing team_id', {}],
    ['a null team_id', { team_id: null }],
    ['a string team_id (D12: no coercion)', { team_id: '1' }],
    ['a fractional team_id', { team_id: 1.5 }],
    ['zero', { team_id: 0 }],
    ['a negative team_id', { team_id: -3 }],
  ])('answers 422 `team_id` for %s, before looking the team up', async ([_case, body], { ctx, api }) => {
    const user = await ctx.given.user();
    expectFieldError(await api.switchTeam(user.token, body), 'team_id');
    expect(await currentTeamOf(ctx, user.id)).toBe(user.teamId);
  });

  it('needs the write ability: a read-only token gets 403, even for a team it is not in', async ({ ctx, api }) => {
    const user = await ctx.given.user({ abilities: ['read'] });
    const other = await sharedTeam(ctx);
    expectError(await api.switchTeam(user.token, { team_id: other.id }), 403, missingAbility('write'));
    expectError(await api.switchTeam(user.token, { team_id: 'x' }), 403, missingAbility('write'));
  });

  it('works without a subscription (no D7 on /user*)', async ({ ctx, api }) => {
    const team = await sharedTeam(ctx);
    const lapsed = await ctx.given.user({ plan: null });
    await ctx.given.member(team.id, lapsed, 'member', { makeCurrent: false });
    const response = await api.switchTeam(lapsed.token, { team_id: team.id });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().data.current_team_id).toBe(team.id);
  });
});
