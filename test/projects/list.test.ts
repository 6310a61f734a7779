import { describe, expect } from 'vitest';
import { test as appTest } from '../helpers/app-fixture.js';
import { buildTestApp, type TestUser } from '../helpers/test-app.js';
import { expectJson, expectValidationError } from '../helpers/contract.js';
import { expectProjectShape } from './project-expectations.js';

const it = appTest
  .extend(
    'list',
    ({ ctx, user }) =>
      (query = '', headers?: Record<string, string>) =>
        ctx.request({ method: 'GET', url: `/api/v1/projects${query}`, token: user.token, headers }),
  )
  /** Creates `count` projects one second apart, oldest first; returns their ids oldest first. */
  .extend(
    'givenProjects',
    ({ ctx, user }) =>
      async function givenProjects(count: number, owner: TestUser | number = user): Promise<string[]> {
        const ids: string[] = [];
        for (let i = 0; i < count; i++) {
          ids.push((await ctx.given.project(owner, { name: `P${i}` })).project.id);
          ctx.clock.advance(1000);
        }
        return ids;
      },
  );

// inject() sends `Host: localhost:80`; D16 builds links from the request's scheme and host.
const INJECT_BASE = 'http://localhost:80/api/v1/projects';

describe('GET /api/v1/projects', () => {
  describe('D16 / api-v1 2.6: pagination envelope', () => {
    it('answers an empty list with last page 1 and null from/to', async ({ list }) => {
      const response = await list();
      expect(response.statusCode).toBe(200);
      expectJson(response);
      expect(response.json()).toEqual({
        data: [],
        links: { first: `${INJECT_BASE}?page=1`, last: `${INJECT_BASE}?page=1`, prev: null, next: null },
        meta: { current_page: 1, per_page: 20, total: 0, last_page: 1, from: null, to: null, path: INJECT_BASE },
      });
    });

    it('answers one project on one page', async ({ list, givenProjects }) => {
      const [id] = await givenProjects(1);
      const body = (await list()).json();
      expect(body.data.map((p: { id: string }) => p.id)).toEqual([id]);
      expectProjectShape(body.data[0]);
      expect(body.links).toEqual({ first: `${INJECT_BASE}?page=1`, last: `${INJECT_BASE}?page=1`, prev: null, next: null });
      expect(body.meta).toEqual({ current_page: 1, per_page: 20, total: 1, last_page: 1, from: 1, to: 1, path: INJECT_BASE });
    });

    it('fits exactly 20 projects on one page', async ({ list, givenProjects }) => {
      const ids = await givenProjects(20);
      const body = (await list()).json();
      expect(body.data.map((p: { id: string }) => p.id)).toEqual([...ids].reverse());
      expect(body.links.next).toBeNull();
      expect(body.meta).toMatchObject({ total: 20, last_page: 1, from: 1, to: 20 });
    });

    it('puts the 21st project on page 2', async ({ list, givenProjects }) => {
      const ids = await givenProjects(21);
      const first = (await list()).json();
      expect(first.data).toHaveLength(20);
      expect(first.links).toEqual({
        first: `${INJECT_BASE}?page=1`,
        last: `${INJECT_BASE}?page=2`,
        prev: null,
        next: `${INJECT_BASE}?page=2`,
      });
      expect(first.meta).toEqual({ current_page: 1, per_page: 20, total: 21, last_page: 2, from: 1, to: 20, path: INJECT_BASE });

      const second = (await list('?page=2')).json();
      expect(second.data.map((p: { id: string }) => p.id)).toEqual([ids[0]]);
      expect(second.links).toEqual({
        first: `${INJECT_BASE}?page=1`,
        last: `${INJECT_BASE}?page=2`,
        prev: `${INJECT_BASE}?page=1`,
        next: null,
      });
      expect(second.meta).toEqual({ current_page: 2, per_page: 20, total: 21, last_page: 2, from: 21, to: 21, path: INJECT_BASE });
    });

    it('walks 45 projects over three pages, newest first, each exactly once', async ({ list, givenProjects }) => {
      const ids = await givenProjects(45);
      const newestFirst = [...ids].reverse();
      const pages = [];
      for (const page of [1, 2, 3]) pages.push((await list(`?page=${page}`)).json());

      expect(pages.map((p) => p.data.length)).toEqual([20, 20, 5]);
      expect(pages.flatMap((p) => p.data.map((d: { id: string }) => d.id))).toEqual(newestFirst);
      expect(pages.map((p) => [p.meta.from, p.meta.to])).toEqual([
        [1, 20],
        [21, 40],
        [41, 45],
      ]);
      expect(pages[1].links).toEqual({
        first: `${INJECT_BASE}?page=1`,
        last: `${INJECT_BASE}?page=3`,
        prev: `${INJECT_BASE}?page=1`,
        next: `${INJECT_BASE}?page=3`,
      });
      expect(pages[2].links.next).toBeNull();
      for (const [index, page] of pages.entries()) {
        expect(page.meta).toMatchObject({ current_page: index + 1, per_page: 20, total: 45, last_page: 3, path: INJECT_BASE });
      }
    });

    it('answers a page past the end with 200, empty data and null from/to', async ({ list, givenProjects }) => {
      await givenProjects(3);
      const response = await list('?page=5');
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({
        data: [],
        links: { first: `${INJECT_BASE}?page=1`, last: `${INJECT_BASE}?page=1`, prev: `${INJECT_BASE}?page=4`, next: null },
        meta: { current_page: 5, per_page: 20, total: 3, last_page: 1, from: null, to: null, path: INJECT_BASE },
      });
    });

    it('answers the largest page, 2147483647, as a page past the end (200, empty data) (D27)', async ({ list, givenProjects }) => {
      await givenProjects(1);
      const response = await list('?page=2147483647');
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json().data).toEqual([]);
      expect(response.json().meta).toMatchObject({ current_page: 2147483647, total: 1, last_page: 1, from: null, to: null });
    });

    it.for(['2147483648', '9007199254740991', '9999999999999999999'])(
      'rejects a page past 2147483647, page=%s, with 422 (D27)',
      async (page, { list }) => {
        expectValidationError(await list(`?page=${page}`), ['page']);
      },
    );

    it.for(['0', '-1', 'abc', '1.5', ''])('rejects page=%s with 422 on errors.page', async (page, { list }) => {
      expectValidationError(await list(`?page=${page}`), ['page']);
    });

    it('builds the links from the Host header of the request', async ({ list }) => {
      const body = (await list('', { host: 'api.scoreboard.test:8080' })).json();
      expect(body.links.first).toBe('http://api.scoreboard.test:8080/api/v1/projects?page=1');
      expect(body.meta.path).toBe('http://api.scoreboard.test:8080/api/v1/projects');
    });

    it('builds the links from PUBLIC_URL when it is set', async () => {
      const publicCtx = await buildTestApp({ env: { PUBLIC_URL: 'https://scoreboard.example.com' } });
      try {
        const owner = await publicCtx.given.user();
        for (let i = 0; i < 21; i++) await publicCtx.given.project(owner);
        const response = await publicCtx.request({
          method: 'GET',
          url: '/api/v1/projects?page=2',
          token: owner.token,
          headers: { host: 'internal.local:3000' },
        });
        expect(response.statusCode).toBe(200);
        const base = 'https://scoreboard.example.com/api/v1/projects';
        expect(response.json().links).toEqual({ first: `${base}?page=1`, last: `${base}?page=2`, prev: `${base}?page=1`, next: null });
        expect(response.json().meta.path).toBe(base);
      } finally {
        await publicCtx.close();
      }
    });
  });

  describe('D16: ordering', () => {
    it('orders by created_at, newest first, even when ids say otherwise', async ({ ctx, user, list }) => {
      const { project: newer } = await ctx.given.project(user, { name: 'created later on the clock' });
      ctx.clock.advance(-3_600_000);
      const { project: older } = await ctx.given.project(user, { name: 'created earlier on the clock' });
      expect(older.id > newer.id).toBe(true); // UUID v7 follows real time, not the fake clock
      const body = (await list()).json();
      expect(body.data.map((p: { id: string }) => p.id)).toEqual([newer.id, older.id]);
    });

    it('breaks created_at ties by newest (highest) id', async ({ ctx, user, list }) => {
      const created = [];
      for (let i = 0; i < 4; i++) created.push((await ctx.given.project(user, { name: `same instant ${i}` })).project.id);
      // All share one created_at; give the first-inserted the highest id so insertion order cannot pass for id order.
      const newIds = [
        '01900000-0000-7000-8000-00000000000d',
        '01900000-0000-7000-8000-00000000000a',
        '01900000-0000-7000-8000-00000000000c',
        '01900000-0000-7000-8000-00000000000b',
      ];
      for (const [i, id] of created.entries()) {
        await ctx.db.updateTable('projects').set({ id: newIds[i]! }).where('id', '=', id).execute();
      }
      const body = (await list()).json();
      expect(body.data.map((p: { id: string }) => p.id)).toEqual([...newIds].sort().reverse());
    });

    it('keeps tie order stable across pages for projects created at one instant', async ({ ctx, user, list }) => {
      const ids = [];
      for (let i = 0; i < 25; i++) ids.push((await ctx.given.project(user)).project.id);
      const seen = [...(await list()).json().data, ...(await list('?page=2')).json().data].map((p: { id: string }) => p.id);
      expect(seen).toEqual([...ids].sort().reverse());
    });
  });

  describe('D15: only the current team', () => {
    it("lists the current team's projects only, and follows a switch of current team", async ({ ctx, user, list, givenProjects }) => {
      const other = await ctx.given.user();
      const [mine] = await givenProjects(1);
      const theirs = await givenProjects(2, other);

      expect((await list()).json().data.map((p: { id: string }) => p.id)).toEqual([mine]);
      expect((await list()).json().meta.total).toBe(1);

      await ctx.given.member(other.teamId!, user, 'readonly');
      const switched = (await list()).json();
      expect(switched.data.map((p: { id: string }) => p.id)).toEqual([...theirs].reverse());
      expect(switched.meta.total).toBe(2);
      expect(switched.data.every((p: { team_id: number }) => p.team_id === other.teamId)).toBe(true);

      await ctx.given.teams.setCurrentTeam(user.id, user.teamId!);
      expect((await list()).json().data.map((p: { id: string }) => p.id)).toEqual([mine]);
    });

    it('does not switch the current team when joining without makeCurrent', async ({ ctx, user, list, givenProjects }) => {
      const other = await ctx.given.user();
      await givenProjects(2, other);
      await ctx.given.member(other.teamId!, user, 'member', { makeCurrent: false });
      expect((await list()).json().meta.total).toBe(0);
    });

    it('lists archived projects too (D17)', async ({ ctx, user, list, givenProjects }) => {
      const [id] = await givenProjects(1);
      await ctx.request({ method: 'POST', url: `/api/v1/projects/${id}/archive`, token: user.token });
      const body = (await list()).json();
      expect(body.data.map((p: { id: string }) => p.id)).toEqual([id]);
      expect(body.data[0].archived_at).not.toBeNull();
    });
  });
});
