/**
 * Issue 15 item 4: on PostgreSQL the hot reads (prepared-query.ts) are sent as named prepared
 * statements, parsed and planned once per connection instead of at every run; every other statement
 * stays unnamed, so no connection collects statements without bound. The answers are the same.
 */
import { sql } from 'kysely';
import { afterEach, describe, expect } from 'vitest';
import { it } from '../helpers/app-fixture.js';
import { createDatabase, type Db } from '../../src/db/database.js';
import { statementName } from '../../src/db/named-statements.js';
import { createProjectsRepository } from '../../src/projects/projects.repository.js';
import { onPostgres } from '../helpers/test-backend.js';

describe.skipIf(!onPostgres)('named prepared statements (PostgreSQL)', () => {
  let db: Db;
  it.beforeEach(async ({ ctx }) => {
    // One connection, so that what it has prepared can be read on it.
    db = createDatabase(ctx.store.env.DATABASE_URL!, { poolMax: 1 });
  });
  afterEach(async () => {
    await db.destroy();
  });

  const prepared = async () =>
    (await sql<{ name: string; statement: string }>`select name, statement from pg_prepared_statements order by name`.execute(db)).rows;

  it('prepares a hot read once per connection, under the name its text was given, and answers as the API does', async ({ ctx, user }) => {
    const { project } = await ctx.given.project(user, { name: 'Named' });
    await ctx.given.report(project.id);
    const projects = createProjectsRepository(db);
    const page = { limit: 20, offset: 0 };

    const first = await projects.listForTeam(user.teamId!, page);
    const [statement] = await prepared();
    expect(statement).toBeDefined();
    expect(statement!.name).toBe(statementName(statement!.statement));

    // Run again: the same prepared statement, no second one; the same rows.
    expect(await projects.listForTeam(user.teamId!, page)).toEqual(first);
    expect(await prepared()).toEqual([statement]);
    expect(first.map((row) => row.id)).toEqual([project.id]);

    const listed = await ctx.request({ method: 'GET', url: '/api/v1/projects', token: user.token });
    expect(listed.json().data.map((item: { id: string }) => item.id)).toEqual([project.id]);
  });

  it('sends every other statement unnamed', async () => {
    await sql`select ${1}::int as one`.execute(db);
    await db.selectFrom('projects').select('id').where('name', '=', 'x').execute();
    expect(await prepared()).toEqual([]);
  });
});
