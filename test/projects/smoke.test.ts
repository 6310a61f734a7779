import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestContext } from '../helpers/test-app.js';

describe('smoke', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await buildTestApp();
  });
  afterAll(async () => ctx.close());

  it('creates and lists a project with its latest report', async () => {
    const user = await ctx.given.user();
    const { project } = await ctx.given.project(user, { name: 'Shop' });
    await ctx.given.report(project.id, { score: 91 });
    const response = await ctx.request({ method: 'GET', url: '/api/v1/projects', token: user.token });
    expect(response.statusCode).toBe(200);
    expect(response.json().data[0]).toMatchObject({ id: project.id, name: 'Shop', latest_report: { score: 91 } });
  });
});
