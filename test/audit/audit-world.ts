import type { AuditEventRow } from '../../src/audit/audit.repository.js';
import type { TestContext, TestUser } from '../helpers/test-app.js';

/** The User-Agent every request of these tests sends, so events can be seen to keep it. */
export const USER_AGENT = 'scoreboard-audit-test/1.0';
export const CLIENT_IP = '203.0.113.77';

export function requester(ctx: TestContext) {
  return (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, token: string, body?: unknown) =>
    ctx.request({ method, url, token, body, headers: { 'user-agent': USER_AGENT }, remoteAddress: CLIENT_IP });
}

/** Every stored event, oldest first, with `details` parsed. */
export async function storedEvents(
  ctx: TestContext,
): Promise<Array<Omit<AuditEventRow, 'details'> & { details: Record<string, unknown> }>> {
  const rows = await ctx.db.selectFrom('audit_events').selectAll().orderBy('id').execute();
  return rows.map((row) => ({ ...row, details: JSON.parse(row.details) as Record<string, unknown> }));
}

/** The events written since `since` events existed (what one request wrote). */
export async function eventsAfter(ctx: TestContext, since: number) {
  return (await storedEvents(ctx)).slice(since);
}

export async function eventCount(ctx: TestContext): Promise<number> {
  return (await storedEvents(ctx)).length;
}

/** The id of the token `user.token` is (their first, made by users:create). */
export async function firstTokenId(ctx: TestContext, user: TestUser): Promise<number> {
  const row = await ctx.db
    .selectFrom('personal_access_tokens')
    .select('id')
    .where('user_id', '=', user.id)
    .orderBy('id')
    .executeTakeFirstOrThrow();
  return row.id;
}
