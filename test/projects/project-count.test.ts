import { describe, expect } from 'vitest';
import { test as appTest } from '../helpers/app-fixture.js';

const it = appTest
  .extend(
    'total',
    ({ ctx, user }) =>
      async () =>
        (await ctx.request({ method: 'GET', url: '/api/v1/projects', token: user.token })).json().meta.total,
  )
  .extend(
    'create',
    ({ ctx, user }) =>
      (name: string) =>
        ctx.request({ method: 'POST', url: '/api/v1/projects', token: user.token, body: { name, framework_version: '11' } }),
  );

// D16's meta.total is the team's project count, kept on the team by every create and delete (in
// the same transaction), so listing never counts the team's projects row by row.
describe('meta.total follows creates and deletes', () => {
  it('counts creates, deletes (once each) and nothing for a refused create', async ({ ctx, user, total, create }) => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await create(`P${i}`)).json().project.id);
    expect(await total()).toBe(3);
    expect((await create('')).statusCode).toBe(422);
    expect(await total()).toBe(3);
    expect((await ctx.request({ method: 'DELETE', url: `/api/v1/projects/${ids[0]}`, token: user.token })).statusCode).toBe(200);
    expect((await ctx.request({ method: 'DELETE', url: `/api/v1/projects/${ids[0]}`, token: user.token })).statusCode).toBe(404);
    expect(await total()).toBe(2);
  });

  it('stays exact under concurrent creates and deletes', async ({ ctx, user, total, create }) => {
    const created = await Promise.all(Array.from({ length: 12 }, (_, i) => create(`C${i}`)));
    expect(created.every((response) => response.statusCode === 201)).toBe(true);
    const ids = created.map((response) => response.json().project.id as string);
    await Promise.all(ids.slice(0, 5).map((id) => ctx.request({ method: 'DELETE', url: `/api/v1/projects/${id}`, token: user.token })));
    expect(await total()).toBe(7);
    const row = await ctx.db.selectFrom('teams').select('projects_count').where('id', '=', user.teamId!).executeTakeFirstOrThrow();
    expect(Number(row.projects_count)).toBe(7);
  });
});
