/**
 * E2.2 over HTTP: each project's badge key, `GET /api/v1/projects/{project}/badges` (read, D15 view)
 * and `POST .../badges/regenerate` (write, D15 update): absolute URLs built like D16's links, a new
 * key that makes the old URLs 404 at once on every instance (a second app on the same store), the
 * key kept out of every project answer, and D4's order of checks.
 */
import { describe, expect } from 'vitest';
import { appTest } from '../helpers/app-fixture.js';
import { createApp } from '../../src/app.js';
import type { Db } from '../../src/db/database.js';
import * as badgeKeysMigration from '../../src/db/migrations/0005-badge-keys.js';
import type { TeamRole } from '../../src/db/schema.js';
import type { App } from '../../src/http/app-types.js';
import {
  NOT_FOUND,
  SUBSCRIPTION_REQUIRED,
  UNAUTHENTICATED,
  expectApiHeaders,
  expectError,
  expectNotFound,
  missingAbility,
} from '../helpers/contract.js';
import { MISSING_PROJECT } from '../helpers/endpoints.js';
import { onPostgres } from '../helpers/test-backend.js';
import { buildTestApp, send } from '../helpers/test-app.js';

const it = appTest({ user: { plan: 'business' }, project: { name: 'Shop' } })
  .extend(
    'keyOf',
    ({ ctx, projectId }) =>
      async (id = projectId) =>
        (await ctx.db.selectFrom('projects').select('badge_key').where('id', '=', id).executeTakeFirstOrThrow()).badge_key,
  )
  /** `token` null: no Authorization header at all. */
  .extend(
    'getBadges',
    ({ ctx, user: owner, projectId }) =>
      (token: string | null = owner.token, id = projectId) =>
        ctx.request({ method: 'GET', url: `/api/v1/projects/${id}/badges`, token: token ?? undefined }),
  )
  .extend(
    'regenerate',
    ({ ctx, user: owner, projectId }) =>
      (token: string | null = owner.token, id = projectId) =>
        ctx.request({ method: 'POST', url: `/api/v1/projects/${id}/badges/regenerate`, token: token ?? undefined }),
  )
  /** The status of each of the three badges at `urls`, on `app`. */
  .extend(
    'statuses',
    ({ ctx }) =>
      async (urls: Record<string, string>, app: App = ctx.app) =>
        Promise.all(Object.values(urls).map(async (url) => (await send(app, { method: 'GET', url: new URL(url).pathname })).statusCode)),
  );

/** E2.2: 32 letters and digits. */
const BADGE_KEY = /^[A-Za-z0-9]{32}$/;
// inject() sends `Host: localhost:80`; the URLs are built from the request's scheme and host (D16).
const INJECT_HOST = 'http://localhost:80';

describe('badge keys and badge URLs (E2.2)', () => {
  const urlsFor = (key: string, base = INJECT_HOST) => ({
    score_svg: `${base}/badges/${key}/score.svg`,
    gate_svg: `${base}/badges/${key}/gate.svg`,
    score_json: `${base}/badges/${key}/score.json`,
  });
  describe('the key', () => {
    it('is given to every new project, through the API or not: 32 letters and digits, unique', async ({ ctx, user: owner, keyOf }) => {
      const created = await ctx.request({
        method: 'POST',
        url: '/api/v1/projects',
        token: owner.token,
        body: { name: 'New', framework_version: '11' },
      });
      expect(created.statusCode).toBe(201);
      const keys = [await keyOf(), await keyOf(created.json().project.id)];
      for (const key of keys) expect(key).toMatch(BADGE_KEY);
      expect(new Set(keys).size).toBe(2);
    });

    it('is neither kind of token: not the project API token, not its hash', async ({ ctx, user: owner }) => {
      const { apiToken } = await ctx.given.project(owner, { name: 'Tokened' });
      const row = await ctx.db.selectFrom('projects').selectAll().where('name', '=', 'Tokened').executeTakeFirstOrThrow();
      expect(row.badge_key).toMatch(BADGE_KEY);
      expect(row.badge_key).not.toBe(apiToken);
      expect(apiToken).not.toContain(row.badge_key);
    });

    it('stays out of every project answer (the project shape of api-v1 2.2 is unchanged)', async ({
      ctx,
      user: owner,
      projectId,
      keyOf,
    }) => {
      const key = await keyOf();
      for (const url of [`/api/v1/projects/${projectId}`, '/api/v1/projects']) {
        const response = await ctx.request({ method: 'GET', url, token: owner.token });
        expect(response.statusCode).toBe(200);
        expect(response.body).not.toContain(key);
        expect(response.body).not.toContain('badge');
      }
      const created = await ctx.request({
        method: 'POST',
        url: '/api/v1/projects',
        token: owner.token,
        body: { name: 'Other', framework_version: '11' },
      });
      expect(Object.keys(created.json().project)).not.toContain('badge_key');
    });

    it('is given to the projects stored before the migration, each its own, unique by index (migration 0005)', async ({
      ctx,
      user: owner,
      projectId,
      keyOf,
    }) => {
      const others = await Promise.all(['B', 'C'].map(async (name) => (await ctx.given.project(owner, { name })).project.id));
      await badgeKeysMigration.down(ctx.db as unknown as Db);
      await badgeKeysMigration.up(ctx.db as unknown as Db);
      const keys = await Promise.all([projectId, ...others].map((id) => keyOf(id)));
      for (const key of keys) expect(key).toMatch(BADGE_KEY);
      expect(new Set(keys).size).toBe(3);
      // The unique index: a second project with the same key is refused by the database.
      await expect(ctx.db.updateTable('projects').set({ badge_key: keys[0]! }).where('id', '=', others[0]!).execute()).rejects.toThrow();
      if (onPostgres) {
        await expect(
          ctx.db
            .updateTable('projects')
            .set({ badge_key: null as unknown as string })
            .where('id', '=', projectId)
            .execute(),
        ).rejects.toThrow(/null/);
      }
    });
  });

  describe('GET /api/v1/projects/{project}/badges', () => {
    it('answers the three absolute badge URLs, built from the request like D16 links', async ({ keyOf, getBadges, statuses }) => {
      const response = await getBadges();
      expect(response.statusCode).toBe(200);
      expectApiHeaders(response);
      expect(response.json()).toEqual({ data: urlsFor(await keyOf()) });
      expect(await statuses(response.json().data)).toEqual([200, 200, 200]);
    });

    it('builds the URLs from PUBLIC_URL when it is set', async () => {
      const publicCtx = await buildTestApp({ env: { PUBLIC_URL: 'https://scores.example.com' } });
      try {
        const user = await publicCtx.given.user();
        const { project } = await publicCtx.given.project(user);
        const response = await publicCtx.request({ method: 'GET', url: `/api/v1/projects/${project.id}/badges`, token: user.token });
        const key = (await publicCtx.db.selectFrom('projects').select('badge_key').executeTakeFirstOrThrow()).badge_key;
        expect(response.json()).toEqual({ data: urlsFor(key, 'https://scores.example.com') });
      } finally {
        await publicCtx.close();
      }
    });

    it('answers the same URLs every time (the key changes only when regenerated)', async ({ getBadges }) => {
      expect((await getBadges()).json()).toEqual((await getBadges()).json());
    });
  });

  describe('POST /api/v1/projects/{project}/badges/regenerate', () => {
    it('issues a new key and answers its URLs like GET badges; the old URLs answer 404 at once', async ({
      keyOf,
      getBadges,
      regenerate,
      statuses,
    }) => {
      const old = (await getBadges()).json().data;
      const response = await regenerate();
      expect(response.statusCode).toBe(200);
      expectApiHeaders(response);
      const key = await keyOf();
      expect(key).toMatch(BADGE_KEY);
      expect(response.json()).toEqual({ data: urlsFor(key) });
      expect(response.json().data).not.toEqual(old);
      expect((await getBadges()).json()).toEqual(response.json());

      expect(await statuses(old)).toEqual([404, 404, 404]);
      expect(await statuses(response.json().data)).toEqual([200, 200, 200]);
    });

    it('changes nothing else: the project, its API token and its reports stay', async ({ ctx, user: owner, regenerate }) => {
      const { project, apiToken } = await ctx.given.project(owner, { name: 'Kept' });
      await ctx.given.report(project.id);
      const before = await ctx.db.selectFrom('projects').selectAll().where('id', '=', project.id).executeTakeFirstOrThrow();
      ctx.clock.advance(1_000);
      expect((await regenerate(owner.token, project.id)).statusCode).toBe(200);
      const after = await ctx.db.selectFrom('projects').selectAll().where('id', '=', project.id).executeTakeFirstOrThrow();
      expect(after).toEqual({ ...before, badge_key: expect.stringMatching(BADGE_KEY), updated_at: ctx.clock.now().toISOString() });
      expect(after.badge_key).not.toBe(before.badge_key);
      expect((await ctx.request({ method: 'GET', url: '/api/token/verify', token: apiToken })).statusCode).toBe(200);
      expect(
        (await ctx.request({ method: 'GET', url: `/api/v1/projects/${project.id}`, token: owner.token })).json().data.latest_report,
      ).not.toBeNull();
    });

    it('works on an archived project too, whose badges still work (D17)', async ({ ctx, user: owner, projectId, regenerate, statuses }) => {
      expect((await ctx.request({ method: 'POST', url: `/api/v1/projects/${projectId}/archive`, token: owner.token })).statusCode).toBe(
        200,
      );
      const response = await regenerate();
      expect(response.statusCode).toBe(200);
      expect(await statuses(response.json().data)).toEqual([200, 200, 200]);
    });

    it('makes the old URLs 404 at once on a second instance on the same store, which served them a moment before', async ({
      ctx,
      user: owner,
      projectId,
      getBadges,
      regenerate,
      statuses,
    }) => {
      const db = ctx.store.open();
      const second = await createApp(ctx.config, { db, clock: ctx.clock });
      try {
        await second.ready();
        const old = (await getBadges()).json().data;
        expect(await statuses(old, second)).toEqual([200, 200, 200]);

        const fresh = (await regenerate()).json().data;
        expect(await statuses(old, second)).toEqual([404, 404, 404]);
        expect(await statuses(fresh, second)).toEqual([200, 200, 200]);
        // And the other way round: regenerated on the second instance, refused on the first.
        const third = (
          await send(second, { method: 'POST', url: `/api/v1/projects/${projectId}/badges/regenerate`, token: owner.token })
        ).json().data;
        expect(await statuses(fresh)).toEqual([404, 404, 404]);
        expect(await statuses(third)).toEqual([200, 200, 200]);
      } finally {
        await second.close();
        await db.destroy();
      }
    });
  });

  describe('team roles (D15)', () => {
    // View: any role; regenerate: the update permission (owner, admin, member). Otherwise 404.
    const MAY_REGENERATE: TeamRole[] = ['admin', 'member'];

    it.for(['admin', 'member', 'readonly'] as const)(
      'a team %s may read the badge URLs',
      async (role, { ctx, user: owner, keyOf, getBadges }) => {
        const colleague = await ctx.given.user({ plan: 'business' });
        await ctx.given.member(owner.teamId!, colleague, role);
        const response = await getBadges(colleague.token);
        expect(response.statusCode).toBe(200);
        expect(response.json()).toEqual({ data: urlsFor(await keyOf()) });
      },
    );

    it.for(['admin', 'member', 'readonly'] as const)(
      'a team %s regenerates only with the update permission',
      async (role, { ctx, user: owner, keyOf, regenerate }) => {
        const colleague = await ctx.given.user({ plan: 'business' });
        await ctx.given.member(owner.teamId!, colleague, role);
        const before = await keyOf();
        const response = await regenerate(colleague.token);
        if (MAY_REGENERATE.includes(role)) {
          expect(response.statusCode).toBe(200);
          expect(await keyOf()).not.toBe(before);
        } else {
          expectNotFound(response);
          expect(await keyOf()).toBe(before);
        }
      },
    );

    it("answers 404 to someone outside the project's team, for both, and changes nothing", async ({
      ctx,
      keyOf,
      getBadges,
      regenerate,
    }) => {
      const stranger = await ctx.given.user({ plan: 'business' });
      const before = await keyOf();
      expectNotFound(await getBadges(stranger.token));
      expectNotFound(await regenerate(stranger.token));
      expect(await keyOf()).toBe(before);
    });
  });

  describe('D4 order of checks', () => {
    it('401 without a token, before the missing project (D4.3 before D4.7)', async ({ getBadges, regenerate }) => {
      for (const response of [
        await getBadges(null, MISSING_PROJECT),
        await regenerate(null, MISSING_PROJECT),
        await regenerate('not-a-token'),
      ]) {
        expectError(response, 401, UNAUTHENTICATED);
        expectApiHeaders(response);
      }
    });

    it('403 Subscription Required before the ability and the missing project (D4.4, D7)', async ({ ctx, getBadges, regenerate }) => {
      const lapsed = await ctx.given.user({ plan: null });
      const reader = await ctx.given.token(lapsed, { abilities: ['read'] });
      expectError(await regenerate(reader, MISSING_PROJECT), 403, SUBSCRIPTION_REQUIRED);
      expectError(await getBadges(lapsed.token, MISSING_PROJECT), 403, SUBSCRIPTION_REQUIRED);
    });

    it("403 for a token without 'write' before the missing project; 'read' is enough to read (D4.5, D6)", async ({
      ctx,
      user: owner,
      keyOf,
      getBadges,
      regenerate,
    }) => {
      const reader = await ctx.given.token(owner, { abilities: ['read'] });
      const before = await keyOf();
      expectError(await regenerate(reader, MISSING_PROJECT), 403, missingAbility('write'));
      expectError(await regenerate(reader), 403, missingAbility('write'));
      expect(await keyOf()).toBe(before);
      expect((await getBadges(reader)).statusCode).toBe(200);
    });

    it('404 for a project that does not exist or is no UUID (D4.7, D11)', async ({ user: owner, getBadges, regenerate }) => {
      for (const id of [MISSING_PROJECT, 'not-a-uuid', '1']) {
        expectError(await getBadges(owner.token, id), 404, NOT_FOUND);
        expectError(await regenerate(owner.token, id), 404, NOT_FOUND);
      }
    });
  });
});
