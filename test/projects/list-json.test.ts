import fastJsonStringify from 'fast-json-stringify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { paginationEnvelope } from '../../src/wire/pagination.js';
import { createProjectsRepository } from '../../src/projects/projects.repository.js';
import { ProjectListResponse } from '../../src/projects/projects.schemas.js';
import { toProject } from '../../src/projects/projects.service.js';
import { buildTestApp, type TestContext, type TestUser } from '../helpers/test-app.js';

// The list page's projects are JSON written by the database (projects.repository.ts); its answer
// must be the very bytes the response schema's serialiser writes from the row objects, on both
// databases (run with --project postgres too): key order, nulls, integers, floats, escapes.
describe('GET /api/v1/projects answers the bytes of its schema serialiser', () => {
  let ctx: TestContext;
  let user: TestUser;
  beforeEach(async () => {
    ctx = await buildTestApp();
    user = await ctx.given.user({ plan: 'business' });
  });
  afterEach(async () => ctx.close());

  it('for projects with and without a latest report, odd text, floats and settings', async () => {
    const texts = ['plain', 'quote " backslash \\ slash /', 'control \u0001\b\t\n\u000b\f\r\u001f', 'é ü 漢字 😀 \u2028 \u007f', ''];
    const times = [null, 2, 0.30000000000000004, 1.5, 1e-7, 123456.789, 0];
    for (const [i, time] of times.entries()) {
      const text = texts[i % texts.length]!;
      const { project } = await ctx.given.project(user, { name: `P ${text}`, description: i % 2 ? null : text });
      if (i % 3 !== 2) await ctx.given.report(project.id, { total_execution_time: time, triggered_by: i % 2 ? null : text });
      if (i === 1) {
        const settings = { ...project.settings, fail_on: 'high', fail_threshold: 60, ticket_target_project_name: text };
        await ctx.db
          .updateTable('projects')
          .set({ settings: JSON.stringify(settings), archived_at: ctx.clock.now().toISOString() })
          .where('id', '=', project.id)
          .execute();
      }
      if (i === 4)
        await ctx.db
          .updateTable('projects')
          .set({ settings: '{"fail_on":"low"}', repository_url: 'https://example.com/a' })
          .where('id', '=', project.id)
          .execute();
    }

    const response = await ctx.request({ method: 'GET', url: '/api/v1/projects', token: user.token });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');

    const rows = await createProjectsRepository(ctx.db).listForTeam(user.teamId!, { limit: 20, offset: 0 });
    const path = 'http://localhost:80/api/v1/projects';
    const expected = fastJsonStringify(ProjectListResponse)({
      data: rows.map(toProject),
      ...paginationEnvelope({ path, page: 1, total: times.length, count: rows.length }),
    });
    expect(rows).toHaveLength(times.length);
    expect(response.body.replaceAll(/http:\/\/[^/"]+/g, 'http://localhost:80')).toBe(expected);
  });

  it('for a page past the end and a user without a team', async () => {
    await ctx.given.project(user);
    const past = await ctx.request({ method: 'GET', url: '/api/v1/projects?page=3', token: user.token });
    expect(past.statusCode).toBe(200);
    expect(past.json()).toMatchObject({ data: [], meta: { current_page: 3, total: 1, from: null, to: null } });
    const loner = await ctx.given.user({ plan: 'business', withTeam: false });
    const empty = await ctx.request({ method: 'GET', url: '/api/v1/projects', token: loner.token });
    expect(empty.statusCode).toBe(200);
    expect(empty.json()).toMatchObject({ data: [], meta: { total: 0 } });
  });
});
