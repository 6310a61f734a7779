/**
 * What the tickets tests share: a connection stored as the connections feature stores it (its
 * credentials sealed under the tests' key), a project's ticket target (D14's settings), and the
 * E9.3/E9.4 requests.
 */
import { v7 as uuidv7 } from 'uuid';
import { createSecretBox, parseSecretKey } from '../../src/secrets/secret-box.js';
import { TEST_SECRET_KEY, type TestContext } from '../helpers/test-app.js';

/** The box the tests' apps seal with (given to them as `deps.secrets`). */
export const box = createSecretBox(parseSecretKey(TEST_SECRET_KEY));

/** A connection of `teamId`, its credentials sealed as the connections feature seals them. */
export async function givenConnection(
  ctx: TestContext,
  teamId: number,
  provider: string,
  baseUrl: string,
  credentials: Record<string, string>,
) {
  const id = uuidv7();
  const at = new Date().toISOString();
  await ctx.db
    .insertInto('connections')
    .values({
      id,
      team_id: teamId,
      provider,
      name: `${provider} of the team`,
      base_url: baseUrl,
      credentials: box.seal(JSON.stringify(credentials), `connection:${id}`),
      credentials_hint: '1234',
      created_at: at,
      updated_at: at,
      last_used_at: null,
    })
    .execute();
  return id;
}

export async function setTarget(ctx: TestContext, projectId: string, key: string | null, name: string | null = null) {
  const row = await ctx.db.selectFrom('projects').select('settings').where('id', '=', projectId).executeTakeFirstOrThrow();
  const settings = { ...JSON.parse(row.settings), ticket_target_project_key: key, ticket_target_project_name: name };
  await ctx.db
    .updateTable('projects')
    .set({ settings: JSON.stringify(settings) })
    .where('id', '=', projectId)
    .execute();
}

export const putTracker = (ctx: TestContext, token: string, projectId: string, body: unknown) =>
  ctx.request({ method: 'PUT', url: `/api/v1/projects/${projectId}/tracker`, token, body });
export const createTicket = (ctx: TestContext, token: string, projectId: string, fingerprint: string) =>
  ctx.request({ method: 'POST', url: `/api/v1/projects/${projectId}/issues/${fingerprint}/ticket`, token });
export const bulkTickets = (ctx: TestContext, token: string, projectId: string, body: unknown) =>
  ctx.request({ method: 'POST', url: `/api/v1/projects/${projectId}/issues/bulk-tickets`, token, body });
