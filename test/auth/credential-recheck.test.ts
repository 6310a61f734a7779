/**
 * D22: a request is identified when its headers arrive, but a change it asks for is made only if,
 * when its body has been read, its token (personal or project) still authenticates, its ability and
 * role still hold, and an upload's project is not archived. The check for a write is inside the
 * write's transaction, so a revocation, rotation or archive that commits first always wins.
 *
 * Two kinds of race, each on both backends:
 * - a slow client (the reproductions, over real sockets): the credential changes while the
 *   body is on its way, and the request is answered as if it had arrived then;
 * - the narrowest window: the change commits on another connection after the request has been
 *   identified for the last time and before its write. Only the check inside the write's
 *   transaction can see it.
 */
import type { Compilable } from 'kysely';
import { describe, expect } from 'vitest';
import { sharedAppTest } from '../helpers/app-fixture.js';
import type { Db } from '../../src/db/database.js';
import { SqliteDatabase } from '../../src/db/sqlite-binding.js';
import { minimalReport } from '../helpers/client-wire.js';
import { NOT_FOUND, SUBSCRIPTION_REQUIRED, UNAUTHENTICATED } from '../helpers/contract.js';
import { startRaw, type RawRequest, type RawResponse } from '../helpers/raw-http.js';
import { onPostgres } from '../helpers/test-backend.js';
import { type TestUser, listenOnLoopback, tokenIdOf } from '../helpers/test-app.js';
import { HANG_MS } from '../helpers/eventually.js';

const it = sharedAppTest({ env: { UPLOAD_RATE_LIMIT: '1000' } })
  /** The id of the user's first token, or of the one with that name. */
  .extend(
    'tokenIdOf',
    ({ ctx }) =>
      (user: TestUser, name?: string) =>
        tokenIdOf(ctx, user, name),
  )
  .extend(
    'projectRow',
    ({ ctx }) =>
      () =>
        ctx.db.selectFrom('projects').selectAll().where('id', '=', projectId).executeTakeFirst(),
  )
  /** What the project holds: its reports and failed runs. */
  .extend('heldByProject', ({ ctx }) => async () => ({
    reports: (await ctx.db.selectFrom('reports').select('id').where('project_id', '=', projectId).execute()).length,
    failures: (await ctx.db.selectFrom('run_failures').select('id').where('project_id', '=', projectId).execute()).length,
  }))
  /** Resolves once `count` statements matching `pattern` have run since `mark` (the server has got that far). */
  .extend(
    'untilQueries',
    ({ ctx }) =>
      async function untilQueries(mark: number, pattern: RegExp, count = 1): Promise<void> {
        const deadline = Date.now() + HANG_MS;
        while (ctx.queries.slice(mark).filter((sql) => pattern.test(sql)).length < count) {
          if (Date.now() > deadline) throw new Error(`the server never ran ${count} × ${pattern}`);
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      },
  )
  /** Starts `request` with its last body byte held back, and resolves once the server has identified it. */
  .extend(
    'slowRequest',
    ({ ctx, untilQueries }) =>
      async function slowRequest(request: RawRequest, identifiedBy: RegExp) {
        const mark = ctx.queries.length;
        const inFlight = await startRaw(port, request);
        await untilQueries(mark, identifiedBy);
        return inFlight;
      },
  )
  /**
   * Commits `change` on another connection at the worst moment for the request `send` makes: after the
   * `nth` statement matching `lastRead` (the request's last read before its write) and before its
   * write. SQLite: a second connection writes synchronously right after that statement. PostgreSQL:
   * the change is made first in an open transaction, and committed once the request has passed
   * `lastRead` (its reads do not wait for the change's locks; its write, locking what it relies on,
   * does, and must then see the change).
   */
  .extend(
    'commitBeforeWrite',
    ({ ctx }) =>
      async function commitBeforeWrite<T>(
        change: (db: Db) => Compilable<unknown>,
        lastRead: RegExp,
        nth: number,
        send: () => Promise<T>,
      ): Promise<T> {
        let seen = 0;
        if (!onPostgres) {
          const other = new SqliteDatabase(ctx.store.sqliteFile!);
          other.pragma('busy_timeout = 5000');
          const compiled = change(ctx.db).compile();
          const stop = ctx.onQuery((sql) => {
            if (lastRead.test(sql) && ++seen === nth) other.prepare(compiled.sql).run(...(compiled.parameters as unknown[]));
          });
          try {
            const answer = await send();
            expect(seen, 'the request never reached its last read').toBeGreaterThanOrEqual(nth);
            return answer;
          } finally {
            stop();
            other.close();
          }
        }

        const other = ctx.store.open();
        let release!: () => void;
        const held = new Promise<void>((resolve) => (release = resolve));
        let changed!: () => void;
        const changeMade = new Promise<void>((resolve) => (changed = resolve));
        const committed = other.transaction().execute(async (trx) => {
          await trx.executeQuery(change(trx).compile());
          changed();
          await held;
        });
        let passed!: () => void;
        const passedLastRead = new Promise<void>((resolve) => (passed = resolve));
        const stop = ctx.onQuery((sql) => {
          if (lastRead.test(sql) && ++seen === nth) passed();
        });
        try {
          await changeMade;
          const answer = send();
          await Promise.race([passedLastRead, answer]);
          expect(seen, 'the request never reached its last read').toBeGreaterThanOrEqual(nth);
          release();
          await committed;
          return await answer;
        } finally {
          release();
          stop();
          await other.destroy();
        }
      },
  );

const ARCHIVED = {
  success: false,
  error: 'Conflict',
  message: 'This project is archived and does not accept reports. Unarchive it first.',
};
const CLIENT_UNAUTHENTICATED = { success: false, ...UNAUTHENTICATED };
const ROLE_CANNOT_CREATE = { error: 'Forbidden', message: 'Your role in this team does not allow creating projects.' };

let port: number;
it.beforeAll(async ({ ctx }) => {
  port = await listenOnLoopback(ctx);
});

let owner: TestUser;
/** A second token of the owner's, to act from another connection while the first one's request is under way. */
let otherToken: string;
let projectId: string;
let apiToken: string;
it.beforeEach(async ({ ctx }) => {
  owner = await ctx.given.user({ plan: 'enterprise' });
  otherToken = await ctx.given.token(owner, { name: 'second' });
  ({
    project: { id: projectId },
    apiToken,
  } = await ctx.given.project(owner, { name: 'Raced' }));
});

const body = (response: RawResponse) => JSON.parse(response.body) as Record<string, unknown>;

/** What identifies a request: the personal token lookup, and the project token lookup. */
const PERSONAL_LOOKUP = /"t"\."token_hash" = /;
const PROJECT_LOOKUP = /"p"\."api_token_hash" = /;
/** A dashboard session's lookup (E7). */
const SESSION_LOOKUP = /"x"\."token_hash" = /;

const v1 = (method: string, target: string, token: string, json: unknown): RawRequest => ({
  method,
  target,
  headers: [
    ['Authorization', `Bearer ${token}`],
    ['Content-Type', 'application/json'],
  ],
  body: JSON.stringify(json),
});
const uploadRequest = (target = '/api/reports', json: unknown = minimalReport()): RawRequest => ({
  method: 'POST',
  target,
  headers: [
    ['Authorization', `Bearer ${apiToken}`],
    ['Content-Type', 'application/json'],
  ],
  body: JSON.stringify(json),
});
const fetchAs = (token: string, method: string, path: string, json?: unknown) =>
  fetch(`http://127.0.0.1:${port}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(json === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(json === undefined ? {} : { body: JSON.stringify(json) }),
  });

describe('a credential that changes while the body is on its way (D22, over real sockets)', () => {
  it('DELETE /projects/{id}: the token is revoked from another connection meanwhile: 401, and the project stays', async ({
    tokenIdOf,
    projectRow,
    slowRequest,
  }) => {
    const inFlight = await slowRequest(v1('DELETE', `/api/v1/projects/${projectId}`, owner.token, {}), PERSONAL_LOOKUP);
    expect((await fetchAs(otherToken, 'DELETE', `/api/v1/tokens/${await tokenIdOf(owner)}`)).status).toBe(200);

    const answer = await inFlight.finish();
    expect({ status: answer.status, body: body(answer) }).toEqual({ status: 401, body: UNAUTHENTICATED });
    expect(await projectRow()).toBeDefined();
  });

  it('DELETE /projects/{id} by a dashboard session signed out from another connection meanwhile: 401, and the project stays (E7)', async ({
    ctx,
    projectRow,
    slowRequest,
  }) => {
    await ctx.given.password(owner, 'a dashboard passphrase');
    const signIn = await fetch(`http://127.0.0.1:${port}/api/v1/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: owner.email, password: 'a dashboard passphrase' }),
    });
    const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!;
    const csrf = ((await signIn.json()) as { data: { csrf_token: string } }).data.csrf_token;
    const sessionHeaders: [string, string][] = [
      ['Cookie', cookie],
      ['X-CSRF-Token', csrf],
    ];
    const inFlight = await slowRequest(
      {
        method: 'DELETE',
        target: `/api/v1/projects/${projectId}`,
        headers: [...sessionHeaders, ['Content-Type', 'application/json']],
        body: '{}',
      },
      SESSION_LOOKUP,
    );
    const signOut = await fetch(`http://127.0.0.1:${port}/api/v1/session`, {
      method: 'DELETE',
      headers: Object.fromEntries(sessionHeaders),
    });
    expect(signOut.status).toBe(204);

    const answer = await inFlight.finish();
    expect({ status: answer.status, body: body(answer) }).toEqual({ status: 401, body: UNAUTHENTICATED });
    expect(await projectRow()).toBeDefined();
  });

  it('five slow uploads and a token rotation between: each 401, nothing stored, no latest report', async ({
    projectRow,
    heldByProject,
    slowRequest,
  }) => {
    const uploads = [];
    for (let i = 0; i < 5; i++) uploads.push(await slowRequest(uploadRequest(), PROJECT_LOOKUP));
    expect((await fetchAs(owner.token, 'POST', `/api/v1/projects/${projectId}/regenerate-token`)).status).toBe(200);

    for (const inFlight of uploads) {
      const answer = await inFlight.finish();
      expect({ status: answer.status, body: body(answer) }).toEqual({ status: 401, body: CLIENT_UNAUTHENTICATED });
    }
    expect(await heldByProject()).toEqual({ reports: 0, failures: 0 });
    expect((await projectRow())!.latest_report_id).toBeNull();
  });

  it('an upload while the project is archived: 409, nothing stored', async ({ heldByProject, slowRequest }) => {
    const inFlight = await slowRequest(uploadRequest(), PROJECT_LOOKUP);
    expect((await fetchAs(owner.token, 'POST', `/api/v1/projects/${projectId}/archive`)).status).toBe(200);

    const answer = await inFlight.finish();
    expect({ status: answer.status, body: body(answer) }).toEqual({ status: 409, body: ARCHIVED });
    expect(await heldByProject()).toEqual({ reports: 0, failures: 0 });
  });

  it('a failure notice while the token is rotated: 401, nothing stored', async ({ heldByProject, slowRequest }) => {
    const inFlight = await slowRequest(uploadRequest('/api/reports/failure', { failure_reason: 'uncaught_exception' }), PROJECT_LOOKUP);
    expect((await fetchAs(owner.token, 'POST', `/api/v1/projects/${projectId}/regenerate-token`)).status).toBe(200);

    const answer = await inFlight.finish();
    expect({ status: answer.status, body: body(answer) }).toEqual({ status: 401, body: CLIENT_UNAUTHENTICATED });
    expect(await heldByProject()).toEqual({ reports: 0, failures: 0 });
  });

  it('PUT /projects/{id} by a member demoted to readonly meanwhile: 404, nothing changed', async ({ ctx, projectRow, slowRequest }) => {
    const member = await ctx.given.user();
    await ctx.given.member(owner.teamId!, member, 'member');
    const inFlight = await slowRequest(
      v1('PUT', `/api/v1/projects/${projectId}`, member.token, { name: 'Renamed', framework_version: '12' }),
      PERSONAL_LOOKUP,
    );
    await ctx.given.member(owner.teamId!, member, 'readonly');

    const answer = await inFlight.finish();
    expect({ status: answer.status, body: body(answer) }).toEqual({ status: 404, body: NOT_FOUND });
    expect((await projectRow())!.name).toBe('Raced');
  });

  it('POST /projects while the subscription ends: 403 Subscription Required, nothing created', async ({ ctx, slowRequest }) => {
    const inFlight = await slowRequest(
      v1('POST', '/api/v1/projects', owner.token, { name: 'Late', framework_version: '11' }),
      PERSONAL_LOOKUP,
    );
    await ctx.given.plan(owner, null);

    const answer = await inFlight.finish();
    expect({ status: answer.status, body: body(answer) }).toEqual({ status: 403, body: SUBSCRIPTION_REQUIRED });
    expect(await ctx.db.selectFrom('projects').select('id').where('name', '=', 'Late').execute()).toEqual([]);
  });

  it('two tokens that revoke each other at once: exactly one revocation succeeds, the other is 401', async ({ ctx, tokenIdOf }) => {
    const [first, second] = await Promise.all([
      fetchAs(owner.token, 'DELETE', `/api/v1/tokens/${await tokenIdOf(owner, 'second')}`),
      fetchAs(otherToken, 'DELETE', `/api/v1/tokens/${await tokenIdOf(owner)}`),
    ]);
    expect([first.status, second.status].sort()).toEqual([200, 401]);
    const left = await ctx.db.selectFrom('personal_access_tokens').select('id').where('user_id', '=', owner.id).execute();
    expect(left).toHaveLength(1);
  });

  it('POST /tokens while the token is revoked: 401, no token created', async ({ ctx, tokenIdOf, slowRequest }) => {
    const inFlight = await slowRequest(v1('POST', '/api/v1/tokens', owner.token, { name: 'Late', abilities: ['read'] }), PERSONAL_LOOKUP);
    expect((await fetchAs(otherToken, 'DELETE', `/api/v1/tokens/${await tokenIdOf(owner)}`)).status).toBe(200);

    const answer = await inFlight.finish();
    expect({ status: answer.status, body: body(answer) }).toEqual({ status: 401, body: UNAUTHENTICATED });
    expect(await ctx.db.selectFrom('personal_access_tokens').select('id').where('name', '=', 'Late').execute()).toEqual([]);
  });
});

/** The project lookup of D4 step 7 (`resolveProjectParam`), a report's lookup, the D4 step 8 role read. */
const PROJECT_RESOLVED = /inner join "team_members" as "m"/;
const REPORT_RESOLVED = /from "reports" as "r" inner join "projects"/;
const ROLE_READ = /from "team_members" where/;
/** D4 step 8's token limit (D9), read after the request's last identification. */
const TOKEN_COUNT = /count\(\*\).* from "personal_access_tokens" where "user_id"/;

describe('a change that commits after the last identification, before the write (D22, in the write transaction)', () => {
  // A fresh last_used_at (D9), so identification writes nothing the change could hold a lock on.
  it.beforeEach(async ({ ctx }) => {
    expect((await ctx.request({ method: 'GET', url: '/api/v1/tokens', token: owner.token })).statusCode).toBe(200);
  });

  const revokeOwnersToken = (db: Db) =>
    db.deleteFrom('personal_access_tokens').where('user_id', '=', owner.id).where('name', '!=', 'second');
  // A hash no token has (and no other project: the column is unique).
  const rotateProjectToken = (db: Db) =>
    db
      .updateTable('projects')
      .set({ api_token_hash: `rotated-${projectId}` })
      .where('id', '=', projectId);
  const archiveProject = (db: Db) =>
    db.updateTable('projects').set({ archived_at: '2026-01-01T00:00:00.000Z' }).where('id', '=', projectId);

  it('PUT /projects/{id} with new settings, token revoked: 401, settings unchanged', async ({ ctx, projectRow, commitBeforeWrite }) => {
    const before = await projectRow();
    const answer = await commitBeforeWrite(revokeOwnersToken, PROJECT_RESOLVED, 1, () =>
      ctx.request({
        method: 'PUT',
        url: `/api/v1/projects/${projectId}`,
        token: owner.token,
        body: { name: 'Renamed', framework_version: '12', settings: { fail_on: 'high' } },
      }),
    );
    expect({ status: answer.statusCode, body: answer.json() }).toEqual({ status: 401, body: UNAUTHENTICATED });
    expect(await projectRow()).toEqual(before);
  });

  it('DELETE /projects/{id}, the owner demoted to member: 404, the project stays', async ({ ctx, projectRow, commitBeforeWrite }) => {
    const demote = (db: Db) => db.updateTable('team_members').set({ role: 'member' }).where('user_id', '=', owner.id);
    const answer = await commitBeforeWrite(demote, PROJECT_RESOLVED, 1, () =>
      ctx.request({ method: 'DELETE', url: `/api/v1/projects/${projectId}`, token: owner.token }),
    );
    expect({ status: answer.statusCode, body: answer.json() }).toEqual({ status: 404, body: NOT_FOUND });
    expect(await projectRow()).toBeDefined();
  });

  it('POST /projects/{id}/regenerate-token, token revoked: 401, the project token still works', async ({ ctx, commitBeforeWrite }) => {
    const answer = await commitBeforeWrite(revokeOwnersToken, PROJECT_RESOLVED, 1, () =>
      ctx.request({ method: 'POST', url: `/api/v1/projects/${projectId}/regenerate-token`, token: owner.token }),
    );
    expect({ status: answer.statusCode, body: answer.json() }).toEqual({ status: 401, body: UNAUTHENTICATED });
    expect((await ctx.request({ method: 'GET', url: '/api/token/verify', token: apiToken })).statusCode).toBe(200);
  });

  it('POST /projects/{id}/badges/regenerate, token revoked: 401, the badge key unchanged (E2.2)', async ({
    ctx,
    projectRow,
    commitBeforeWrite,
  }) => {
    const before = (await projectRow())!.badge_key;
    const answer = await commitBeforeWrite(revokeOwnersToken, PROJECT_RESOLVED, 1, () =>
      ctx.request({ method: 'POST', url: `/api/v1/projects/${projectId}/badges/regenerate`, token: owner.token }),
    );
    expect({ status: answer.statusCode, body: answer.json() }).toEqual({ status: 401, body: UNAUTHENTICATED });
    expect((await projectRow())!.badge_key).toBe(before);
  });

  it('POST /projects/{id}/badges/regenerate, the owner demoted to readonly: 404, the badge key unchanged (E2.2, D15)', async ({
    ctx,
    projectRow,
    commitBeforeWrite,
  }) => {
    const before = (await projectRow())!.badge_key;
    const demote = (db: Db) => db.updateTable('team_members').set({ role: 'readonly' }).where('user_id', '=', owner.id);
    const answer = await commitBeforeWrite(demote, PROJECT_RESOLVED, 1, () =>
      ctx.request({ method: 'POST', url: `/api/v1/projects/${projectId}/badges/regenerate`, token: owner.token }),
    );
    expect({ status: answer.statusCode, body: answer.json() }).toEqual({ status: 404, body: NOT_FOUND });
    expect((await projectRow())!.badge_key).toBe(before);
  });

  it('DELETE /reports/{id}, token revoked: 401, the report stays', async ({ ctx, heldByProject, commitBeforeWrite }) => {
    const report = await ctx.given.report(projectId);
    const answer = await commitBeforeWrite(revokeOwnersToken, REPORT_RESOLVED, 1, () =>
      ctx.request({ method: 'DELETE', url: `/api/v1/reports/${report.uuid}`, token: owner.token }),
    );
    expect({ status: answer.statusCode, body: answer.json() }).toEqual({ status: 401, body: UNAUTHENTICATED });
    expect(await heldByProject()).toEqual({ reports: 1, failures: 0 });
  });

  it('POST /tokens, token revoked: 401, no token created', async ({ ctx, commitBeforeWrite }) => {
    // The request is identified twice (headers, then body: on SQLite from the token cache, issue 15); the
    // limit check reads after that.
    const answer = await commitBeforeWrite(revokeOwnersToken, TOKEN_COUNT, 1, () =>
      ctx.request({ method: 'POST', url: '/api/v1/tokens', token: owner.token, body: { name: 'Late', abilities: ['read'] } }),
    );
    expect({ status: answer.statusCode, body: answer.json() }).toEqual({ status: 401, body: UNAUTHENTICATED });
    expect(await ctx.db.selectFrom('personal_access_tokens').select('id').where('name', '=', 'Late').execute()).toEqual([]);
  });

  it('POST /projects, the owner demoted to readonly: 403, nothing created', async ({ ctx, commitBeforeWrite }) => {
    const demote = (db: Db) => db.updateTable('team_members').set({ role: 'readonly' }).where('user_id', '=', owner.id);
    const answer = await commitBeforeWrite(demote, ROLE_READ, 1, () =>
      ctx.request({ method: 'POST', url: '/api/v1/projects', token: owner.token, body: { name: 'Late', framework_version: '11' } }),
    );
    expect({ status: answer.statusCode, body: answer.json() }).toEqual({ status: 403, body: ROLE_CANNOT_CREATE });
    expect(await ctx.db.selectFrom('projects').select('id').where('name', '=', 'Late').execute()).toEqual([]);
  });

  it('an upload, project token rotated: 401, nothing stored', async ({ ctx, heldByProject, commitBeforeWrite }) => {
    const answer = await commitBeforeWrite(rotateProjectToken, PROJECT_LOOKUP, 2, () =>
      ctx.request({ method: 'POST', url: '/api/reports', token: apiToken, body: minimalReport() }),
    );
    expect({ status: answer.statusCode, body: answer.json() }).toEqual({ status: 401, body: CLIENT_UNAUTHENTICATED });
    expect(await heldByProject()).toEqual({ reports: 0, failures: 0 });
  });

  it('an upload, project archived: 409, nothing stored', async ({ ctx, heldByProject, commitBeforeWrite }) => {
    const answer = await commitBeforeWrite(archiveProject, PROJECT_LOOKUP, 2, () =>
      ctx.request({ method: 'POST', url: '/api/reports', token: apiToken, body: minimalReport() }),
    );
    expect({ status: answer.statusCode, body: answer.json() }).toEqual({ status: 409, body: ARCHIVED });
    expect(await heldByProject()).toEqual({ reports: 0, failures: 0 });
  });

  it('a failure notice, project token rotated: 401, nothing stored', async ({ ctx, heldByProject, commitBeforeWrite }) => {
    const answer = await commitBeforeWrite(rotateProjectToken, PROJECT_LOOKUP, 2, () =>
      ctx.request({ method: 'POST', url: '/api/reports/failure', token: apiToken, body: { failure_reason: 'uncaught_exception' } }),
    );
    expect({ status: answer.statusCode, body: answer.json() }).toEqual({ status: 401, body: CLIENT_UNAUTHENTICATED });
    expect(await heldByProject()).toEqual({ reports: 0, failures: 0 });
  });
});
