/**
 * The upgrade tests' steps (upgrade-from-*.test.ts): what the previous release wrote, its reads
 * before and after, the way down to its schema and back up, as `scoreboard migrate` does.
 */
import { expect } from 'vitest';
import { createMigrator } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/migrate.js';
import { type FixtureName, loadFixture, uploadOk } from '../helpers/client-wire.js';
import { givenUploader } from '../helpers/reports-world.js';
import type { TestContext, TestUser } from '../helpers/test-app.js';

/** A business user's project with gate settings (fail_on high, threshold 70), and `fixtures` uploaded to it (their uuids). */
export async function givenReleaseData(
  ctx: TestContext,
  fixtures: readonly FixtureName[],
  before?: (world: { user: TestUser; projectId: string }) => Promise<unknown>,
) {
  const { user, projectId, apiToken } = await givenUploader(ctx);
  const settings = await ctx.request({
    method: 'PUT',
    url: `/api/v1/projects/${projectId}`,
    token: user.token,
    body: { name: 'Shop', framework_version: '12', settings: { fail_on: 'high', fail_threshold: 70 } },
  });
  expect(settings.statusCode, settings.body).toBe(200);
  await before?.({ user, projectId });
  const uuids: string[] = [];
  // Each another run, even of one fixture: the same body twice is a retry, stored once (D40).
  for (const [run, name] of fixtures.entries()) {
    uuids.push((await uploadOk(ctx, apiToken, { ...loadFixture(name, projectId), total_execution_time: run + 1 })).report.uuid);
  }
  return { user, projectId, apiToken, uuids };
}

/** A webhook of the project for `report.created` (201); its id. */
export async function addWebhook(ctx: TestContext, user: TestUser, projectId: string): Promise<string> {
  const hook = await ctx.request({
    method: 'POST',
    url: `/api/v1/projects/${projectId}/webhooks`,
    token: user.token,
    body: { url: 'https://hooks.example.com/in', events: ['report.created'] },
  });
  expect(hook.statusCode, hook.body).toBe(201);
  return hook.json().webhook.id as string;
}

/** What `user` reads at `urls` (the bodies, in order), to compare before and after the upgrade. */
export function readsOf(ctx: TestContext, user: TestUser, urls: string[]): () => Promise<string[]> {
  return () => Promise.all(urls.map(async (url) => (await ctx.request({ method: 'GET', url, token: user.token })).body));
}

/** Down to the previous release's schema (`migration` the last it had), then up to the latest again. */
export async function downToAndBack(ctx: TestContext, migration: string): Promise<void> {
  const { error } = await (await createMigrator(ctx.db)).migrateTo(migration);
  expect(error).toBeUndefined();
  await migrateToLatest(ctx.db);
}

/** The client package's token still names its project. */
export async function expectTokenVerifies(ctx: TestContext, apiToken: string, projectId: string): Promise<void> {
  const verified = await ctx.request({ method: 'GET', url: '/api/token/verify', token: apiToken });
  expect(verified.json()).toMatchObject({ success: true, valid: true, project: { id: projectId } });
}
