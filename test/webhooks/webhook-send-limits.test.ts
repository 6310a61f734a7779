/**
 * D31 on the two routes that make a delivery on request: `ping` and `redeliver` share a budget of
 * 10 a minute per webhook (429 in D3's envelope with Retry-After, counted in the same store as D8,
 * so shared by every instance when Redis is configured), and an inactive webhook answers 409.
 */
import type { LightMyRequestResponse } from 'fastify';
import { describe, expect } from 'vitest';
import { appTest } from '../helpers/app-fixture.js';
import { NOT_FOUND, expectError, expectTooManyRequests } from '../helpers/contract.js';
import { countRows } from '../helpers/test-app.js';

const INACTIVE = { error: 'Conflict', message: 'The webhook is inactive.' };
const MISSING = '0190a8f4-7c1d-7a4b-9f2e-3c5d6e7f8a9d';

const hooks = `/api/v1/projects/${'{project}'}/webhooks`;
const accepted = (response: LightMyRequestResponse) => expect(response.statusCode, response.body).toBe(202);

/** A fresh app for each test: an Enterprise owner with the project Shop, and the webhook calls bound to them. */
const it = appTest({ user: { plan: 'enterprise' }, project: { name: 'Shop' } })
  .extend(
    'post',
    ({ ctx, user, projectId }) =>
      (url: string, body?: unknown) =>
        ctx.request({ method: 'POST', url: url.replace('{project}', projectId), token: user.token, body }),
  )
  .extend(
    'put',
    ({ ctx, user, projectId }) =>
      (url: string, body: unknown) =>
        ctx.request({ method: 'PUT', url: url.replace('{project}', projectId), token: user.token, body }),
  )
  .extend('createHook', ({ post }) => async () => {
    const created = await post(hooks, { url: 'https://hooks.example.com/in', events: ['ping'] });
    expect(created.statusCode, created.body).toBe(201);
    return `${hooks}/${created.json().webhook.id as string}`;
  })
  .extend(
    'ping',
    ({ post }) =>
      (hook: string) =>
        post(`${hook}/ping`),
  )
  .extend(
    'redeliver',
    ({ post }) =>
      (hook: string, delivery: string) =>
        post(`${hook}/deliveries/${delivery}/redeliver`),
  );

describe('ping and redeliver: 10 a minute per webhook, 409 when inactive (D31)', () => {
  it('answers the 11th ping or redelivery of a webhook within a minute 429 with Retry-After, and makes no delivery for it', async ({
    ctx,
    createHook,
    ping,
    redeliver,
  }) => {
    const hook = await createHook();
    const first = await ping(hook);
    accepted(first);
    const deliveryId = first.json().data.id as string;
    for (let i = 0; i < 4; i++) accepted(await ping(hook));
    for (let i = 0; i < 5; i++) accepted(await redeliver(hook, deliveryId));
    expect(await countRows(ctx.db, 'webhook_deliveries')).toBe(10);

    const overPing = await ping(hook);
    const retryAfter = expectTooManyRequests(overPing);
    expect(retryAfter).toBe(60);
    expectTooManyRequests(await redeliver(hook, deliveryId));
    expect(await countRows(ctx.db, 'webhook_deliveries')).toBe(10);

    // Per webhook: another one of the same project has its own budget.
    const other = await createHook();
    accepted(await ping(other));

    // The window is a minute: after it, the webhook may be pinged again.
    ctx.clock.advance(30_000);
    expect(expectTooManyRequests(await ping(hook))).toBe(30);
    ctx.clock.advance(30_000);
    accepted(await ping(hook));
  });

  it('answers 409 for an inactive webhook, after the 404s of the path, without using its budget', async ({
    put,
    createHook,
    ping,
    redeliver,
    ctx,
  }) => {
    const hook = await createHook();
    const delivery = (await ping(hook)).json().data.id as string;
    const deactivated = await put(hook, { active: false });
    expect(deactivated.statusCode, deactivated.body).toBe(200);
    const before = await countRows(ctx.db, 'webhook_deliveries');

    for (let i = 0; i < 12; i++) expectError(await ping(hook), 409, INACTIVE);
    expectError(await redeliver(hook, delivery), 409, INACTIVE);
    // D4: a path resource that does not exist is a 404 before any state of the webhook.
    expectError(await redeliver(hook, MISSING), 404, NOT_FOUND);
    expectError(await ping(`${hooks}/${MISSING}`), 404, NOT_FOUND);
    expect(await countRows(ctx.db, 'webhook_deliveries')).toBe(before);

    // Active again: the 409s took nothing of the ten.
    expect((await put(hook, { active: true })).statusCode).toBe(200);
    for (let i = 0; i < 9; i++) accepted(await ping(hook));
    expectTooManyRequests(await ping(hook));
  });
});
