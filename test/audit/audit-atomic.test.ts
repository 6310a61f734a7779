import { sql } from 'kysely';
import { describe, expect } from 'vitest';
import { appTest } from '../helpers/app-fixture.js';
import { servicesOn } from '../helpers/test-app.js';
import { onPostgres } from '../helpers/test-backend.js';
import { eventCount, requester } from './audit-world.js';

const it = appTest({ user: { plan: 'business' } })
  .extend('send', ({ ctx }) => requester(ctx))
  .extend(
    'refuseAuditInserts',
    ({ ctx }) =>
      async function refuseAuditInserts() {
        if (onPostgres) {
          await sql`create function refuse_audit() returns trigger language plpgsql as $$ begin raise exception 'audit refused'; end $$`.execute(
            ctx.db,
          );
          await sql`create trigger refuse_audit before insert on audit_events for each row execute function refuse_audit()`.execute(ctx.db);
        } else {
          await sql`create trigger refuse_audit before insert on audit_events begin select raise(abort, 'audit refused'); end`.execute(
            ctx.db,
          );
        }
      },
  )
  .extend(
    'dropRefusal',
    ({ ctx }) =>
      async function dropRefusal() {
        await sql`drop trigger if exists refuse_audit ${onPostgres ? sql`on audit_events` : sql``}`.execute(ctx.db);
        if (onPostgres) await sql`drop function if exists refuse_audit()`.execute(ctx.db);
      },
  );

/**
 * E5: an event is written in the same transaction as its change. Both directions are shown: an
 * event that cannot be written takes its change down with it (a trigger refuses the insert), and a
 * change rolled back after it was made takes its event with it.
 */
describe('audit events and their changes commit together (E5)', () => {
  it.afterEach(async ({ dropRefusal }) => {
    await dropRefusal();
  });

  it('a change whose event cannot be stored is not made: 500, and everything stays as it was', async ({
    ctx,
    user,
    send,
    refuseAuditInserts,
  }) => {
    const id = (await send('POST', '/api/v1/projects', user.token, { name: 'Shop', framework_version: '11' })).json().project.id;
    const before = await ctx.db.selectFrom('projects').selectAll().execute();
    await refuseAuditInserts();

    expect((await send('PUT', `/api/v1/projects/${id}`, user.token, { name: 'Renamed', framework_version: '12' })).statusCode).toBe(500);
    expect((await send('POST', `/api/v1/projects/${id}/regenerate-token`, user.token)).statusCode).toBe(500);
    expect((await send('DELETE', `/api/v1/projects/${id}`, user.token)).statusCode).toBe(500);
    expect((await send('POST', '/api/v1/teams', user.token, { name: 'Acme' })).statusCode).toBe(500);
    expect((await send('POST', '/api/v1/tokens', user.token, { name: 'CI', abilities: ['read'] })).statusCode).toBe(500);

    expect(await ctx.db.selectFrom('projects').selectAll().execute()).toEqual(before);
    expect(await ctx.db.selectFrom('teams').select('id').execute()).toHaveLength(1);
    expect(await ctx.db.selectFrom('personal_access_tokens').select('id').execute()).toHaveLength(1);
  });

  it('a change rolled back after it was made leaves no event', async ({ ctx, user }) => {
    const credential = {
      origin: { ip: '192.0.2.1', userAgent: 'test' },
      recheck: async () => ({
        userId: user.id,
        email: user.email,
        tokenId: 1,
        session: null,
        abilities: ['admin' as const],
        currentTeamId: user.teamId,
        activePlan: 'business' as const,
      }),
    };
    const before = await eventCount(ctx);
    const rolledBack = new Error('the outer transaction fails after the change');
    // The services join a transaction they are given (db/database.ts `inTransaction`): make the
    // changes inside one, then fail it.
    await expect(
      ctx.db.transaction().execute(async (trx) => {
        const inTrx = servicesOn(trx, ctx.clock);
        await inTrx.projects.createProject(credential, { name: 'Ghost', framework_version: '11' });
        await inTrx.teams.createTeam(credential, 'Ghosts');
        expect(await trx.selectFrom('audit_events').select('id').execute()).toHaveLength(before + 2);
        throw rolledBack;
      }),
    ).rejects.toBe(rolledBack);
    expect(await eventCount(ctx)).toBe(before);
    expect(await ctx.db.selectFrom('projects').select('id').execute()).toEqual([]);
  });
});
