import type { Ability } from '../../src/auth/abilities.js';
import type { RequestOptions, TestContext, TestUser } from '../helpers/test-app.js';

export interface EndpointCase {
  name: string;
  ability: Ability;
  /** Project endpoints need an active subscription (D7). */
  subscription: boolean;
  success: number;
  /** Builds a valid request for `user` (creating what the path needs), without the token. */
  prepare(ctx: TestContext, user: TestUser): Promise<Omit<RequestOptions, 'token'>>;
}

const projectOf = async (ctx: TestContext, user: TestUser) => (await ctx.given.project(user, { name: 'Target' })).project.id;

/** api-v1 section 4 (9 endpoints) plus D17 archive/unarchive, each with a request that succeeds. */
export const ENDPOINTS: EndpointCase[] = [
  {
    name: 'GET /projects',
    ability: 'read',
    subscription: true,
    success: 200,
    prepare: async () => ({ method: 'GET', url: '/api/v1/projects' }),
  },
  {
    name: 'POST /projects',
    ability: 'write',
    subscription: true,
    success: 201,
    prepare: async () => ({ method: 'POST', url: '/api/v1/projects', body: { name: 'New', framework_version: '12' } }),
  },
  {
    name: 'GET /projects/{project}',
    ability: 'read',
    subscription: true,
    success: 200,
    prepare: async (ctx, user) => ({ method: 'GET', url: `/api/v1/projects/${await projectOf(ctx, user)}` }),
  },
  {
    name: 'PUT /projects/{project}',
    ability: 'write',
    subscription: true,
    success: 200,
    prepare: async (ctx, user) => ({
      method: 'PUT',
      url: `/api/v1/projects/${await projectOf(ctx, user)}`,
      body: { name: 'Renamed', framework_version: '11' },
    }),
  },
  {
    name: 'DELETE /projects/{project}',
    ability: 'write',
    subscription: true,
    success: 200,
    prepare: async (ctx, user) => ({ method: 'DELETE', url: `/api/v1/projects/${await projectOf(ctx, user)}` }),
  },
  {
    name: 'POST /projects/{project}/regenerate-token',
    ability: 'write',
    subscription: true,
    success: 200,
    prepare: async (ctx, user) => ({ method: 'POST', url: `/api/v1/projects/${await projectOf(ctx, user)}/regenerate-token` }),
  },
  {
    name: 'POST /projects/{project}/archive',
    ability: 'write',
    subscription: true,
    success: 200,
    prepare: async (ctx, user) => ({ method: 'POST', url: `/api/v1/projects/${await projectOf(ctx, user)}/archive` }),
  },
  {
    name: 'POST /projects/{project}/unarchive',
    ability: 'write',
    subscription: true,
    success: 200,
    prepare: async (ctx, user) => {
      const id = await projectOf(ctx, user);
      await ctx.db.updateTable('projects').set({ archived_at: ctx.clock.now().toISOString() }).where('id', '=', id).execute();
      return { method: 'POST', url: `/api/v1/projects/${id}/unarchive` };
    },
  },
  {
    name: 'GET /tokens',
    ability: 'read',
    subscription: false,
    success: 200,
    prepare: async () => ({ method: 'GET', url: '/api/v1/tokens' }),
  },
  {
    name: 'POST /tokens',
    ability: 'admin',
    subscription: false,
    success: 201,
    prepare: async () => ({ method: 'POST', url: '/api/v1/tokens', body: { name: 'made', abilities: ['read'] } }),
  },
  {
    name: 'DELETE /tokens/{token}',
    ability: 'admin',
    subscription: false,
    success: 200,
    prepare: async (ctx, user) => {
      await ctx.given.token(user, { name: 'victim' });
      const { id } = await ctx.db
        .selectFrom('personal_access_tokens')
        .select('id')
        .where('user_id', '=', user.id)
        .where('name', '=', 'victim')
        .executeTakeFirstOrThrow();
      return { method: 'DELETE', url: `/api/v1/tokens/${id}` };
    },
  },
];

/** Projects and tokens as rows, to show a refused request changed nothing (last use excluded). */
export async function snapshot(ctx: TestContext) {
  const projects = await ctx.db.selectFrom('projects').selectAll().orderBy('id').execute();
  const tokens = await ctx.db
    .selectFrom('personal_access_tokens')
    .select(['id', 'user_id', 'name', 'token_hash', 'abilities', 'expires_at'])
    .orderBy('id')
    .execute();
  return { projects, tokens };
}
