/**
 * E6 over HTTP: the webhook API under /api/v1/projects/{project}/webhooks (owner or admin of the
 * project's team, else 404; read to list and show, write to change; D7's subscription), the shapes
 * it answers, its rules (URL, events, the 10-webhook limit, partial PUT, deactivation, deletion,
 * secret rotation, ping, the delivery list and redelivery), its audit events (E5), and the outbox:
 * the deliveries each event writes in the transaction of the change that causes it.
 */
import type { LightMyRequestResponse } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import {
  ISO_UTC,
  NOT_FOUND,
  SUBSCRIPTION_REQUIRED,
  UNAUTHENTICATED,
  UUID_V7,
  expectApiHeaders,
  expectError,
  expectValidationError,
  missingAbility,
  sha256,
} from '../helpers/contract.js';
import { result, setGate, uploadBody } from '../helpers/reports-world.js';
import { loadFixture, uploadOk } from '../helpers/client-wire.js';
import { buildTestApp, type TestContext, type TestUser } from '../helpers/test-app.js';
import { webhookSecrets } from '../../src/webhooks/webhook-secrets.js';

const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;
const WEBHOOK_KEYS = ['active', 'created_at', 'description', 'events', 'format', 'id', 'last_delivery', 'url'];
const DELIVERY_KEYS = ['attempts', 'created_at', 'delivered_at', 'error', 'event', 'id', 'next_attempt_at', 'response_status', 'status'];
const ALL_EVENTS = [
  'report.created',
  'report.gate_failed',
  'run.failed',
  'project.token_regenerated',
  'project.archived',
  'issue.updated',
  'ping',
];
const LIMIT = { error: 'Forbidden', message: 'A project can have a maximum of 10 webhooks.' };
const DELETED = { message: 'Webhook deleted successfully.' };
const START = '2026-11-21T10:00:00.000Z';
/** A UUID (v7) that names no webhook nor delivery. */
const MISSING = '0190a8f4-7c1d-7a4b-9f2e-3c5d6e7f8a9d';
const HOOK_URL = 'https://hooks.example.com/scoreboard';

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** A delivery as it is created: pending, never attempted, due at once. */
const pendingDelivery = (event: string, now: string) => ({
  id: expect.stringMatching(UUID_V7),
  event,
  status: 'pending',
  attempts: 0,
  response_status: null,
  error: null,
  next_attempt_at: now,
  created_at: now,
  delivered_at: null,
});

describe('the webhook API (E6)', () => {
  let ctx: TestContext;
  let owner: TestUser;
  let teamId: number;
  let projectId: string;
  let apiToken: string;
  beforeEach(async () => {
    ctx = await buildTestApp(); // fake clock at START
    owner = await ctx.given.user({ plan: 'business' });
    teamId = owner.teamId!;
    const created = await ctx.given.project(owner, { name: 'Shop' });
    projectId = created.project.id;
    apiToken = created.apiToken;
  });
  afterEach(async () => ctx.close());

  const hooksUrl = (project = projectId) => `/api/v1/projects/${project}/webhooks`;
  const hookUrl = (id: string, project = projectId) => `${hooksUrl(project)}/${id}`;
  const api = (method: Method, url: string, token: string | null = owner.token, body?: unknown) =>
    ctx.request({ method, url, token: token ?? undefined, body });

  /** Creates a webhook through the API (201 expected); returns the answer body. */
  async function create(body: Record<string, unknown> = {}, project = projectId, token = owner.token) {
    const response = await api('POST', hooksUrl(project), token, { url: HOOK_URL, events: ['report.created'], ...body });
    expect(response.statusCode, response.body).toBe(201);
    return response.json() as { webhook: Record<string, any>; secret: string; message: string };
  }
  const createId = async (body: Record<string, unknown> = {}, project = projectId) => (await create(body, project)).webhook.id as string;

  /** The stored deliveries (all, or one webhook's), oldest first, with `payload` parsed. */
  async function deliveryRows(webhookId?: string) {
    const rows = await ctx.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .$if(webhookId !== undefined, (query) => query.where('webhook_id', '=', webhookId!))
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map((row) => ({ ...row, payload: JSON.parse(row.payload) as Record<string, any> }));
  }
  /** The stored row, its secrets opened as the worker opens them (stored sealed: E9.2, test/webhooks/sealed-secrets.test.ts). */
  const webhookRow = async (id: string) => {
    const row = await ctx.db.selectFrom('webhooks').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) return row;
    const secrets = webhookSecrets(ctx.secrets);
    return {
      ...row,
      secret: secrets.plain(id, row.secret, 'secret'),
      previous_secret: row.previous_secret === null ? null : secrets.plain(id, row.previous_secret, 'previous'),
    };
  };

  /** The team's audit events through the API, newest first, optionally of one action. */
  async function auditEvents(action?: string): Promise<Array<Record<string, any>>> {
    const response = await api('GET', `/api/v1/teams/${teamId}/audit-events${action ? `?action=${action}` : ''}`);
    expect(response.statusCode, response.body).toBe(200);
    return response.json().data;
  }

  describe('POST /webhooks', () => {
    it('answers 201 with the webhook, its secret (whsec_ + base64 of 32 bytes) and the message, once', async () => {
      const response = await api('POST', hooksUrl(), owner.token, {
        url: HOOK_URL,
        events: ['report.gate_failed', 'run.failed'],
        description: 'CI alerts',
      });
      expect(response.statusCode, response.body).toBe(201);
      expectApiHeaders(response);
      const body = response.json();
      expect(Object.keys(body).sort()).toEqual(['message', 'secret', 'webhook']);
      expect(body.message).toBe('Webhook created successfully. Save the secret — it will only be shown once.');
      expect(body.secret).toMatch(SECRET);
      expect(Buffer.from(body.secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
      expect(Object.keys(body.webhook).sort()).toEqual(WEBHOOK_KEYS);
      expect(body.webhook).toEqual({
        id: expect.stringMatching(UUID_V7),
        url: HOOK_URL,
        events: ['report.gate_failed', 'run.failed'],
        description: 'CI alerts',
        format: 'standard',
        active: true,
        created_at: START,
        last_delivery: null,
      });
      // Stored as given, for this project.
      expect(await webhookRow(body.webhook.id)).toMatchObject({ project_id: projectId, url: HOOK_URL, active: 1, secret: body.secret });
    });

    it('gives every webhook its own secret; description defaults to null; repeated events are kept once, in order', async () => {
      const first = await create({ events: ['run.failed', 'ping', 'run.failed', 'ping', 'report.created'] });
      const second = await create();
      expect(first.webhook.events).toEqual(['run.failed', 'ping', 'report.created']);
      expect(first.webhook.description).toBeNull();
      expect(first.secret).not.toBe(second.secret);
      expect(first.webhook.id).not.toBe(second.webhook.id);
      const all = await create({ events: ALL_EVENTS });
      expect(all.webhook.events).toEqual(ALL_EVENTS);
    });

    describe('the URL: http or https, with a host, no user info, at most 2048 characters (422 on url)', () => {
      const refused = [
        'ftp://hooks.example.com/x',
        'file:///etc/passwd',
        'javascript:alert(1)',
        'mailto:ops@example.com',
        'not a url',
        '/relative/path',
        'hooks.example.com/x',
        'http://',
        'https://user@hooks.example.com/x',
        'https://user:secret@hooks.example.com/x',
        'https://:secret@hooks.example.com/x',
        `https://hooks.example.com/${'a'.repeat(2049 - 'https://hooks.example.com/'.length)}`,
      ];
      for (const url of refused) {
        it(`refuses ${JSON.stringify(url.length > 60 ? `${url.slice(0, 40)}… (${url.length} chars)` : url)}`, async () => {
          const response = await api('POST', hooksUrl(), owner.token, { url, events: ['ping'] });
          expectValidationError(response, ['url']);
          expect(await ctx.db.selectFrom('webhooks').selectAll().execute()).toEqual([]);
        });
      }

      it('accepts http and https, ports, paths and queries, and exactly 2048 characters', async () => {
        const long = `https://hooks.example.com/${'a'.repeat(2048 - 'https://hooks.example.com/'.length)}`;
        expect(long).toHaveLength(2048);
        for (const url of ['http://hooks.example.com/in', 'https://hooks.example.com:8443/in?team=7', long]) {
          expect((await create({ url })).webhook.url).toBe(url);
        }
      });

      it('requires it, as a string', async () => {
        expectValidationError(await api('POST', hooksUrl(), owner.token, { events: ['ping'] }), ['url']);
        expectValidationError(await api('POST', hooksUrl(), owner.token, { url: 42, events: ['ping'] }), ['url']);
      });
    });

    describe('events: a non-empty subset of the event names (else 422)', () => {
      const refused: Array<[string, unknown]> = [
        ['missing', undefined],
        ['empty', []],
        ['an unknown name', ['report.created', 'report.deleted']],
        ['a string, not a list', 'report.created'],
        ['a number in the list', [1]],
        ['null', null],
      ];
      for (const [name, events] of refused) {
        it(`refuses ${name}`, async () => {
          const response = await api('POST', hooksUrl(), owner.token, { url: HOOK_URL, events });
          expect(response.statusCode, response.body).toBe(422);
          expect(response.json().error).toBe('Validation Failed');
          expect(Object.keys(response.json().errors).every((field) => field === 'events' || field.startsWith('events.'))).toBe(true);
          expect(await ctx.db.selectFrom('webhooks').selectAll().execute()).toEqual([]);
        });
      }
    });

    it('allows at most 10 webhooks a project: the 11th gets 403, before the body is validated (D4 step 8)', async () => {
      for (let i = 0; i < 10; i++) await create({ description: `hook ${i}` });
      expectError(await api('POST', hooksUrl(), owner.token, { url: HOOK_URL, events: ['ping'] }), 403, LIMIT);
      expectError(await api('POST', hooksUrl(), owner.token, { url: 'ftp://x', events: [] }), 403, LIMIT);
      expect(await ctx.db.selectFrom('webhooks').select('id').where('project_id', '=', projectId).execute()).toHaveLength(10);
      // Per project: another project of the team may still have its own.
      const other = (await ctx.given.project(owner, { name: 'Other' })).project.id;
      await create({}, other);
      // Deleting one makes room again.
      const [first] = (await api('GET', hooksUrl())).json().data;
      expect((await api('DELETE', hookUrl(first.id))).statusCode).toBe(200);
      await create();
      expectError(await api('POST', hooksUrl(), owner.token, { url: HOOK_URL, events: ['ping'] }), 403, LIMIT);
    });

    it('never ends with more than 10 webhooks under concurrent creation', async () => {
      for (let i = 0; i < 8; i++) await create();
      const responses = await Promise.all(
        Array.from({ length: 5 }, () => api('POST', hooksUrl(), owner.token, { url: HOOK_URL, events: ['ping'] })),
      );
      expect(responses.map((r) => r.statusCode).sort()).toEqual([201, 201, 403, 403, 403]);
      for (const response of responses.filter((r) => r.statusCode === 403)) expectError(response, 403, LIMIT);
      expect(await ctx.db.selectFrom('webhooks').select('id').execute()).toHaveLength(10);
    });
  });

  describe('format (E11.5): the body deliveries are sent in', () => {
    it('is standard unless given; create and update take standard, slack, teams or discord; it is stored and answered', async () => {
      expect((await create()).webhook.format).toBe('standard');
      const { webhook } = await create({ format: 'slack' });
      expect(webhook.format).toBe('slack');
      expect((await webhookRow(webhook.id))!.format).toBe('slack');
      for (const format of ['teams', 'discord', 'standard']) {
        const response = await api('PUT', hookUrl(webhook.id), owner.token, { format });
        expect(response.statusCode, response.body).toBe(200);
        expect(response.json().data).toEqual({ ...webhook, format });
      }
      expect((await api('GET', hookUrl(webhook.id))).json().data.format).toBe('standard');
    });

    it('anything else is a 422 on format, and nothing changes', async () => {
      const { webhook } = await create({ format: 'teams' });
      // D12: strings are trimmed and an empty one is absent (standard); anything else unknown is refused.
      for (const format of ['mattermost', 'Slack', 'microsoft-teams', null, 1, ['slack']]) {
        expectValidationError(await api('POST', hooksUrl(), owner.token, { url: HOOK_URL, events: ['ping'], format }), ['format']);
        expectValidationError(await api('PUT', hookUrl(webhook.id), owner.token, { format }), ['format']);
      }
      expect((await api('GET', hookUrl(webhook.id))).json().data.format).toBe('teams');
    });

    it('the audit log names it: webhook.created with the format, webhook.updated with its old and new', async () => {
      const { webhook } = await create({ format: 'discord' });
      expect((await auditEvents('webhook.created'))[0]!.details).toMatchObject({ format: 'discord' });
      await api('PUT', hookUrl(webhook.id), owner.token, { format: 'slack', description: null });
      expect((await auditEvents('webhook.updated'))[0]!.details).toEqual({ format: { old: 'discord', new: 'slack' } });
      // The same format again is no change: no event.
      await api('PUT', hookUrl(webhook.id), owner.token, { format: 'slack' });
      expect(await auditEvents('webhook.updated')).toHaveLength(1);
    });
  });

  describe('GET /webhooks and GET /webhooks/{webhook}', () => {
    it('list the project’s webhooks newest first and show one, in the same shape, never with the secret', async () => {
      const first = await create({ description: 'first' });
      ctx.clock.advance(1000);
      const second = await create({ events: ['ping'] });
      await create({}, (await ctx.given.project(owner, { name: 'Other' })).project.id);

      const list = await api('GET', hooksUrl());
      expect(list.statusCode).toBe(200);
      expectApiHeaders(list);
      expect(list.json()).toEqual({ data: [second.webhook, first.webhook] });
      const shown = await api('GET', hookUrl(first.webhook.id));
      expect(shown.statusCode).toBe(200);
      expect(shown.json()).toEqual({ data: first.webhook });
      for (const response of [list, shown]) {
        expect(response.body).not.toContain(first.secret.slice(6));
        expect(response.body).not.toContain(second.secret.slice(6));
        expect(response.body).not.toContain('secret');
      }
    });

    it('lists nothing for a project without webhooks', async () => {
      expect((await api('GET', hooksUrl())).json()).toEqual({ data: [] });
    });

    it('shows last_delivery: null before any delivery, then the newest delivery (pending after a ping)', async () => {
      const id = await createId();
      expect((await api('GET', hookUrl(id))).json().data.last_delivery).toBeNull();
      ctx.clock.advance(5000);
      expect((await api('POST', `${hookUrl(id)}/ping`)).statusCode).toBe(202);
      const at = ctx.clock.now().toISOString();
      expect((await api('GET', hookUrl(id))).json().data.last_delivery).toEqual({ status: 'pending', response_status: null, at });
      expect((await api('GET', hooksUrl())).json().data[0].last_delivery).toEqual({ status: 'pending', response_status: null, at });
    });
  });

  describe('ids in the URL', () => {
    it('answer 404 for a webhook id that is not a UUID, is unknown, or is another project’s webhook', async () => {
      const mine = await createId();
      const other = (await ctx.given.project(owner, { name: 'Other' })).project.id;
      const theirs = await createId({}, other);
      for (const id of ['abc', '1', `${mine}x`, mine.slice(0, -1), MISSING, theirs]) {
        for (const [method, suffix, body] of [
          ['GET', '', undefined],
          ['PUT', '', { active: false }],
          ['DELETE', '', undefined],
          ['POST', '/rotate-secret', undefined],
          ['POST', '/ping', undefined],
          ['GET', '/deliveries', undefined],
          ['POST', `/deliveries/${MISSING}/redeliver`, undefined],
        ] as Array<[Method, string, unknown]>) {
          expectError(await api(method, `${hookUrl(id)}${suffix}`, owner.token, body), 404, NOT_FOUND);
        }
      }
      // The other project's webhook is untouched, and reachable through its own project.
      expect(await webhookRow(theirs)).toMatchObject({ active: 1 });
      expect(await deliveryRows()).toEqual([]);
      expect((await api('GET', hookUrl(theirs, other))).statusCode).toBe(200);
      // The id is case-insensitive (D11 ids are lowercase UUIDs).
      expect((await api('GET', hookUrl(mine.toUpperCase()))).json().data.id).toBe(mine);
    });

    it('answer 404 for a project that is not a UUID or does not exist', async () => {
      const id = await createId();
      for (const project of ['abc', MISSING]) {
        expectError(await api('GET', hooksUrl(project)), 404, NOT_FOUND);
        expectError(await api('GET', hookUrl(id, project)), 404, NOT_FOUND);
        expectError(await api('POST', hooksUrl(project), owner.token, { url: HOOK_URL, events: ['ping'] }), 404, NOT_FOUND);
      }
    });

    it('answer 404 for a delivery id that is not a UUID, is unknown, or is another webhook’s delivery', async () => {
      const id = await createId();
      const other = await createId();
      const theirs = (await api('POST', `${hookUrl(other)}/ping`)).json().data.id;
      for (const delivery of ['abc', '7', MISSING, theirs]) {
        expectError(await api('POST', `${hookUrl(id)}/deliveries/${delivery}/redeliver`), 404, NOT_FOUND);
      }
      expect(await deliveryRows()).toHaveLength(1);
    });
  });

  describe('who may', () => {
    /** Every endpoint, with a body that would succeed, on webhook `id` with delivery `delivery`. */
    const calls = (id: string, delivery: string): Array<[Method, string, unknown]> => [
      ['GET', hooksUrl(), undefined],
      ['POST', hooksUrl(), { url: HOOK_URL, events: ['ping'] }],
      ['GET', hookUrl(id), undefined],
      ['PUT', hookUrl(id), { description: 'Changed', url: 'https://evil.example.com/' }],
      ['POST', `${hookUrl(id)}/rotate-secret`, undefined],
      ['POST', `${hookUrl(id)}/ping`, undefined],
      ['GET', `${hookUrl(id)}/deliveries`, undefined],
      ['POST', `${hookUrl(id)}/deliveries/${delivery}/redeliver`, undefined],
      ['DELETE', hookUrl(id), undefined],
    ];
    const state = async () => ({
      webhooks: await ctx.db.selectFrom('webhooks').selectAll().orderBy('id').execute(),
      deliveries: await ctx.db.selectFrom('webhook_deliveries').selectAll().orderBy('id').execute(),
      audit: await ctx.db.selectFrom('audit_events').select('id').execute(),
    });

    it('members, readonly members and non-members get 404 on every endpoint, even with an invalid body, and change nothing', async () => {
      const id = await createId();
      const delivery = (await api('POST', `${hookUrl(id)}/ping`)).json().data.id;
      const member = await ctx.given.user();
      const readonly = await ctx.given.user();
      const stranger = await ctx.given.user({ plan: 'enterprise' });
      await ctx.given.member(teamId, member, 'member');
      await ctx.given.member(teamId, readonly, 'readonly');
      const before = await state();
      for (const user of [member, readonly, stranger]) {
        for (const [method, url, body] of calls(id, delivery)) {
          expectError(await api(method, url, user.token, body), 404, NOT_FOUND);
        }
        expectError(await api('POST', hooksUrl(), user.token, { url: 'ftp://x', events: [] }), 404, NOT_FOUND);
        expectError(await api('PUT', hookUrl(id), user.token, { url: 'ftp://x' }), 404, NOT_FOUND);
      }
      expect(await state()).toEqual(before);
      // A member may view the project itself (D15), just not its webhooks.
      expect((await api('GET', `/api/v1/projects/${projectId}`, member.token)).statusCode).toBe(200);
    });

    it('an admin of the team may do everything, and is the actor of the audit events', async () => {
      const admin = await ctx.given.user();
      await ctx.given.member(teamId, admin, 'admin');
      const id = await createId();
      const delivery = (await api('POST', `${hookUrl(id)}/ping`)).json().data.id;
      const expected = [200, 201, 200, 200, 200, 202, 200, 202, 200];
      const statuses = [];
      for (const [method, url, body] of calls(id, delivery)) statuses.push((await api(method, url, admin.token, body)).statusCode);
      expect(statuses).toEqual(expected);
      const events = (await auditEvents()).filter((event) => event.action.startsWith('webhook.'));
      expect(events.map((event) => [event.action, event.actor.id])).toEqual([
        ['webhook.deleted', admin.id],
        ['webhook.secret_rotated', admin.id],
        ['webhook.updated', admin.id],
        ['webhook.created', admin.id],
        ['webhook.created', owner.id],
      ]);
    });

    it('a read token lists, shows and reads deliveries; every change needs write (403 before 404)', async () => {
      const id = await createId();
      const delivery = (await api('POST', `${hookUrl(id)}/ping`)).json().data.id;
      const reader = await ctx.given.token(owner, { abilities: ['read'] });
      const before = await state();
      for (const [method, url, body] of calls(id, delivery)) {
        const response = await api(method, url, reader, body);
        if (method === 'GET') expect(response.statusCode, `${method} ${url}`).toBe(200);
        else expectError(response, 403, missingAbility('write'));
      }
      // D4: the ability (step 5) is checked before the resource (step 7).
      expectError(await api('DELETE', hookUrl(MISSING), reader), 403, missingAbility('write'));
      expectError(await api('POST', hooksUrl(MISSING), reader, { url: HOOK_URL, events: ['ping'] }), 403, missingAbility('write'));
      expect(await state()).toEqual(before);
      // A write token may change.
      const writer = await ctx.given.token(owner, { abilities: ['write'] });
      expect((await api('POST', `${hookUrl(id)}/ping`, writer)).statusCode).toBe(202);
    });

    it('needs an active subscription (D7) and a token (401)', async () => {
      const id = await createId();
      expectError(await api('GET', hooksUrl(), null), 401, UNAUTHENTICATED);
      expectError(await api('POST', `${hookUrl(id)}/ping`, null), 401, UNAUTHENTICATED);
      await ctx.given.plan(owner, null);
      const before = await state();
      for (const [method, url, body] of calls(id, MISSING)) {
        expectError(await api(method, url, owner.token, body), 403, SUBSCRIPTION_REQUIRED);
      }
      expect(await state()).toEqual(before);
    });
  });

  describe('PUT /webhooks/{webhook}', () => {
    it('changes only what is given, answers the webhook, and writes webhook.updated with old/new of changed fields only', async () => {
      const { webhook } = await create({ events: ['report.created'], description: 'old' });
      ctx.clock.advance(1000);
      const response = await api('PUT', hookUrl(webhook.id), owner.token, { url: 'https://other.example.com/in', events: ['ping'] });
      expect(response.statusCode, response.body).toBe(200);
      expectApiHeaders(response);
      const updated = { ...webhook, url: 'https://other.example.com/in', events: ['ping'] };
      expect(response.json()).toEqual({ data: updated });
      expect((await api('GET', hookUrl(webhook.id))).json()).toEqual({ data: updated });

      const [event] = await auditEvents('webhook.updated');
      expect(event).toMatchObject({ action: 'webhook.updated', target: { type: 'webhook', id: webhook.id }, team_id: teamId });
      expect(event!.details).toEqual({
        // Origins only: a receiver's URL may carry its secret (E5 keeps none).
        url: { old: 'https://hooks.example.com/…', new: 'https://other.example.com/…' },
        events: { old: ['report.created'], new: ['ping'] },
      });

      // Each field alone.
      expect((await api('PUT', hookUrl(webhook.id), owner.token, { description: 'new' })).json().data).toEqual({
        ...updated,
        description: 'new',
      });
      expect((await auditEvents('webhook.updated'))[0]!.details).toEqual({ description: { old: 'old', new: 'new' } });
      expect((await api('PUT', hookUrl(webhook.id), owner.token, { description: null })).json().data.description).toBeNull();
      expect((await api('PUT', hookUrl(webhook.id), owner.token, { active: false })).json().data).toEqual({
        ...updated,
        description: null,
        active: false,
      });
      expect((await auditEvents('webhook.updated'))[0]!.details).toEqual({ active: { old: true, new: false } });
      expect((await api('PUT', hookUrl(webhook.id), owner.token, { active: true })).json().data.active).toBe(true);
      expect(await auditEvents('webhook.updated')).toHaveLength(5);
    });

    it('writes no event when nothing changes (an empty body, or the same values)', async () => {
      const { webhook } = await create({ events: ['ping', 'run.failed'], description: 'd' });
      const before = (await auditEvents()).length;
      for (const body of [
        {},
        { url: HOOK_URL, events: ['ping', 'run.failed'], active: true, description: 'd' },
        { events: ['ping', 'ping', 'run.failed'] },
      ]) {
        const response = await api('PUT', hookUrl(webhook.id), owner.token, body);
        expect(response.statusCode, response.body).toBe(200);
        expect(response.json()).toEqual({ data: webhook });
      }
      expect(await auditEvents()).toHaveLength(before);
    });

    it('validates like POST (url, events, active a boolean) and changes nothing when refused', async () => {
      const { webhook } = await create();
      const before = await webhookRow(webhook.id);
      expectValidationError(await api('PUT', hookUrl(webhook.id), owner.token, { url: 'https://u:p@example.com/' }), ['url']);
      expectValidationError(await api('PUT', hookUrl(webhook.id), owner.token, { url: 'gopher://example.com/' }), ['url']);
      expectValidationError(await api('PUT', hookUrl(webhook.id), owner.token, { url: `https://e.com/${'a'.repeat(2040)}` }), ['url']);
      for (const events of [[], ['nope'], 'ping']) {
        const response = await api('PUT', hookUrl(webhook.id), owner.token, { events, active: false });
        expect(response.statusCode).toBe(422);
        expect(Object.keys(response.json().errors).every((field) => field.startsWith('events'))).toBe(true);
      }
      expectValidationError(await api('PUT', hookUrl(webhook.id), owner.token, { active: 'false' }), ['active']);
      expect(await webhookRow(webhook.id)).toEqual(before);
    });

    it('deactivating ends the pending deliveries as failed, those in flight too, and the webhook gets no new events, nor a ping (D31)', async () => {
      const id = await createId({ events: ['project.token_regenerated', 'ping'] });
      const regenerate = () => api('POST', `/api/v1/projects/${projectId}/regenerate-token`);
      expect((await regenerate()).statusCode).toBe(200);
      expect((await regenerate()).statusCode).toBe(200);
      const [unclaimed, claimed] = await deliveryRows(id);
      // One is being attempted by a worker right now (claimed): it ends too, its claim dropped.
      await ctx.db
        .updateTable('webhook_deliveries')
        .set({ claimed_until: new Date(Date.parse(START) + 60_000).toISOString() })
        .where('id', '=', claimed!.id)
        .execute();
      // One already succeeded: it stays so.
      const done = (await api('POST', `${hookUrl(id)}/ping`)).json().data.id;
      await ctx.db
        .updateTable('webhook_deliveries')
        .set({ status: 'succeeded', attempts: 1, response_status: 204, next_attempt_at: null, delivered_at: START })
        .where('id', '=', done)
        .execute();

      ctx.clock.advance(1000);
      expect((await api('PUT', hookUrl(id), owner.token, { active: false })).statusCode).toBe(200);
      const byId = new Map((await deliveryRows(id)).map((row) => [row.id, row]));
      expect(byId.get(unclaimed!.id)).toMatchObject({ status: 'failed', error: 'The webhook was deactivated.', next_attempt_at: null });
      expect(byId.get(claimed!.id)).toMatchObject({ status: 'failed', error: 'The webhook was deactivated.', claimed_until: null });
      expect(byId.get(done)).toMatchObject({ status: 'succeeded', error: null });
      const listed = (await api('GET', `${hookUrl(id)}/deliveries`)).json().data;
      expect(listed.find((d: { id: string }) => d.id === unclaimed!.id)).toMatchObject({
        status: 'failed',
        error: 'The webhook was deactivated.',
        next_attempt_at: null,
      });

      // Inactive: no delivery for a new event.
      expect((await regenerate()).statusCode).toBe(200);
      expect(await deliveryRows(id)).toHaveLength(3);
      // D31: nor a ping, on request.
      expectError(await api('POST', `${hookUrl(id)}/ping`), 409, { error: 'Conflict', message: 'The webhook is inactive.' });
      // Reactivated: new events are delivered again; the failed ones stay failed.
      expect((await api('PUT', hookUrl(id), owner.token, { active: true })).statusCode).toBe(200);
      expect((await regenerate()).statusCode).toBe(200);
      const rows = await deliveryRows(id);
      expect(rows).toHaveLength(4);
      expect(rows.at(-1)).toMatchObject({ event: 'project.token_regenerated', status: 'pending' });
      expect(rows.find((row) => row.id === unclaimed!.id)).toMatchObject({ status: 'failed' });
    });

    it('a PUT that does not deactivate leaves the pending deliveries alone', async () => {
      const id = await createId({ events: ['ping'] });
      await api('POST', `${hookUrl(id)}/ping`);
      expect((await api('PUT', hookUrl(id), owner.token, { description: 'x', active: true })).statusCode).toBe(200);
      expect((await deliveryRows(id))[0]).toMatchObject({ status: 'pending', error: null });
    });
  });

  describe('DELETE /webhooks/{webhook}', () => {
    it('deletes the webhook and its deliveries (pending ones are never sent), writes webhook.deleted, then 404', async () => {
      const id = await createId({ events: ['project.token_regenerated'] });
      const kept = await createId({ events: ['project.token_regenerated'] });
      expect((await api('POST', `/api/v1/projects/${projectId}/regenerate-token`)).statusCode).toBe(200);
      await api('POST', `${hookUrl(id)}/ping`);
      expect(await deliveryRows(id)).toHaveLength(2);

      const response = await api('DELETE', hookUrl(id));
      expect(response.statusCode).toBe(200);
      expectApiHeaders(response);
      expect(response.json()).toEqual(DELETED);
      expect(await webhookRow(id)).toBeUndefined();
      expect(await deliveryRows(id)).toEqual([]);
      expect(await deliveryRows(kept)).toHaveLength(1);
      expectError(await api('GET', hookUrl(id)), 404, NOT_FOUND);
      expectError(await api('DELETE', hookUrl(id)), 404, NOT_FOUND);
      expectError(await api('GET', `${hookUrl(id)}/deliveries`), 404, NOT_FOUND);
      expect((await api('GET', hooksUrl())).json().data.map((w: { id: string }) => w.id)).toEqual([kept]);

      const [event] = await auditEvents('webhook.deleted');
      expect(event).toMatchObject({ action: 'webhook.deleted', target: { type: 'webhook', id }, team_id: teamId });
      expect(event!.details).toEqual({ project_id: projectId, url: 'https://hooks.example.com/…' });
      expect(await auditEvents('webhook.deleted')).toHaveLength(1);
    });
  });

  describe('POST /webhooks/{webhook}/rotate-secret', () => {
    it('issues a different secret; the old one is kept as previous_secret for 24 hours; writes webhook.secret_rotated', async () => {
      const { webhook, secret } = await create();
      ctx.clock.advance(90_000);
      const response = await api('POST', `${hookUrl(webhook.id)}/rotate-secret`);
      expect(response.statusCode, response.body).toBe(200);
      expectApiHeaders(response);
      const body = response.json();
      expect(Object.keys(body).sort()).toEqual(['message', 'secret']);
      expect(body.secret).toMatch(SECRET);
      expect(Buffer.from(body.secret.slice(6), 'base64')).toHaveLength(32);
      expect(body.secret).not.toBe(secret);
      expect(typeof body.message).toBe('string');
      expect(body.message.length).toBeGreaterThan(0);
      expect(await webhookRow(webhook.id)).toMatchObject({
        secret: body.secret,
        previous_secret: secret,
        previous_secret_until: new Date(Date.parse(START) + 90_000 + 24 * 3600_000).toISOString(),
      });
      // The webhook itself is unchanged.
      expect((await api('GET', hookUrl(webhook.id))).json()).toEqual({ data: webhook });

      const [event] = await auditEvents('webhook.secret_rotated');
      expect(event).toMatchObject({ target: { type: 'webhook', id: webhook.id }, team_id: teamId });

      // A second rotation keeps the secret it replaces, not the first one.
      ctx.clock.advance(1000);
      const again = (await api('POST', `${hookUrl(webhook.id)}/rotate-secret`)).json().secret;
      expect(await webhookRow(webhook.id)).toMatchObject({ secret: again, previous_secret: body.secret });
    });
  });

  describe('secrets stay out of later answers and of the audit log', () => {
    it('no GET, list, PUT or audit event holds a secret', async () => {
      const { webhook, secret } = await create({ events: ['ping'] });
      const rotated = (await api('POST', `${hookUrl(webhook.id)}/rotate-secret`)).json().secret as string;
      const answers = [
        await api('GET', hooksUrl()),
        await api('GET', hookUrl(webhook.id)),
        await api('PUT', hookUrl(webhook.id), owner.token, { description: 'changed' }),
        await api('POST', `${hookUrl(webhook.id)}/ping`),
        await api('GET', `${hookUrl(webhook.id)}/deliveries`),
        await api('GET', `/api/v1/teams/${teamId}/audit-events`),
        await api('GET', '/api/v1/user/audit-events'),
      ];
      const stored = JSON.stringify(await ctx.db.selectFrom('audit_events').selectAll().execute());
      for (const value of [secret, rotated]) {
        const key = value.slice('whsec_'.length);
        for (const answer of answers) {
          expect(answer.statusCode).toBeLessThan(300);
          expect(answer.body).not.toContain(key);
        }
        expect(stored).not.toContain(key);
        expect(stored).not.toContain(sha256(value));
      }
      expect(stored).not.toContain('whsec_');
    });
  });

  describe('audit events (E5)', () => {
    it('webhook.created names the webhook as target, in the project’s team, with what was set', async () => {
      const { webhook } = await create({ events: ['ping', 'run.failed'], description: 'hello' });
      const events = await auditEvents('webhook.created');
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({
        action: 'webhook.created',
        actor: { type: 'user', id: owner.id, email: owner.email },
        target: { type: 'webhook', id: webhook.id },
        team_id: teamId,
        created_at: START,
      });
      expect(events[0]!.details).toMatchObject({
        url: 'https://hooks.example.com/…',
        events: ['ping', 'run.failed'],
        description: 'hello',
      });
      expect(JSON.stringify(events)).not.toContain('/scoreboard');
    });

    it('a refused change writes no event', async () => {
      const id = await createId();
      const before = (await auditEvents()).length;
      const reader = await ctx.given.token(owner, { abilities: ['read'] });
      expect((await api('POST', hooksUrl(), owner.token, { url: 'ftp://x', events: ['ping'] })).statusCode).toBe(422);
      expect((await api('PUT', hookUrl(id), owner.token, { url: 'ftp://x' })).statusCode).toBe(422);
      expect((await api('DELETE', hookUrl(id), reader)).statusCode).toBe(403);
      expect((await api('POST', `${hookUrl(MISSING)}/rotate-secret`)).statusCode).toBe(404);
      // Ping and redeliver are not changes to the webhook: no audit event.
      const delivery = (await api('POST', `${hookUrl(id)}/ping`)).json().data.id;
      expect((await api('POST', `${hookUrl(id)}/deliveries/${delivery}/redeliver`)).statusCode).toBe(202);
      expect(await auditEvents()).toHaveLength(before);
    });
  });

  describe('POST /webhooks/{webhook}/ping', () => {
    it('answers 202 with a pending delivery of a ping, stored with the {project, webhook} payload, whatever the webhook subscribes to', async () => {
      const id = await createId({ events: ['run.failed'] });
      ctx.clock.advance(2000);
      const now = ctx.clock.now().toISOString();
      const response = await api('POST', `${hookUrl(id)}/ping`);
      expect(response.statusCode, response.body).toBe(202);
      expectApiHeaders(response);
      const { data } = response.json();
      expect(Object.keys(data).sort()).toEqual(DELIVERY_KEYS);
      expect(data).toEqual(pendingDelivery('ping', now));
      const [row] = await deliveryRows(id);
      expect(row).toMatchObject({ id: data.id, webhook_id: id, event: 'ping', status: 'pending', attempts: 0, next_attempt_at: now });
      expect(row!.payload).toEqual({ type: 'ping', timestamp: now, data: { project: { id: projectId, name: 'Shop' }, webhook: { id } } });
      // Only that webhook is pinged.
      await createId({ events: ['ping'] });
      expect(await deliveryRows()).toHaveLength(1);
    });
  });

  describe('GET /webhooks/{webhook}/deliveries', () => {
    it('lists the deliveries newest first, 20 a page, in the D16 envelope; a page past the end is empty', async () => {
      const id = await createId({ events: ['ping'] });
      const ids: string[] = [];
      for (let i = 0; i < 21; i++) {
        // Apart enough to stay within D31's ten pings a minute.
        ctx.clock.advance(7000);
        ids.push((await api('POST', `${hookUrl(id)}/ping`)).json().data.id);
      }
      // Another webhook's deliveries are not listed.
      await api('POST', `${hookUrl(await createId())}/ping`);
      const url = `${hookUrl(id)}/deliveries`;
      const base = `http://localhost:80${url}`;
      const first = await api('GET', url);
      expect(first.statusCode).toBe(200);
      expectApiHeaders(first);
      const body = first.json();
      expect(body.data.map((d: { id: string }) => d.id)).toEqual([...ids].reverse().slice(0, 20));
      for (const delivery of body.data) expect(Object.keys(delivery).sort()).toEqual(DELIVERY_KEYS);
      expect(body.meta).toEqual({ current_page: 1, per_page: 20, total: 21, last_page: 2, from: 1, to: 20, path: base });
      expect(body.links).toEqual({ first: `${base}?page=1`, last: `${base}?page=2`, prev: null, next: `${base}?page=2` });
      const second = (await api('GET', `${url}?page=2`)).json();
      expect(second.data.map((d: { id: string }) => d.id)).toEqual([ids[0]]);
      expect(second.meta).toMatchObject({ current_page: 2, from: 21, to: 21 });
      expect((await api('GET', `${url}?page=3`)).json()).toMatchObject({ data: [], meta: { total: 21, from: null, to: null } });
      for (const page of ['0', '-1', 'x', '1.5', '1e2']) expectValidationError(await api('GET', `${url}?page=${page}`), ['page']);
    });

    it('lists nothing for a webhook without deliveries', async () => {
      const id = await createId();
      const body = (await api('GET', `${hookUrl(id)}/deliveries`)).json();
      expect(body.data).toEqual([]);
      expect(body.meta).toMatchObject({ total: 0, last_page: 1, from: null, to: null });
    });
  });

  describe('POST /webhooks/{webhook}/deliveries/{delivery}/redeliver', () => {
    it('answers 202 with a NEW pending delivery of the same event and the same stored payload', async () => {
      const id = await createId({ events: ['project.token_regenerated'] });
      expect((await api('POST', `/api/v1/projects/${projectId}/regenerate-token`)).statusCode).toBe(200);
      const [original] = await deliveryRows(id);
      // The original failed for good.
      await ctx.db
        .updateTable('webhook_deliveries')
        .set({ status: 'failed', attempts: 7, response_status: 500, error: 'The receiver answered 500.', next_attempt_at: null })
        .where('id', '=', original!.id)
        .execute();
      ctx.clock.advance(3600_000);
      const now = ctx.clock.now().toISOString();

      const response = await api('POST', `${hookUrl(id)}/deliveries/${original!.id}/redeliver`);
      expect(response.statusCode, response.body).toBe(202);
      expectApiHeaders(response);
      const { data } = response.json();
      expect(data).toEqual(pendingDelivery('project.token_regenerated', now));
      expect(data.id).not.toBe(original!.id);
      const rows = await deliveryRows(id);
      expect(rows).toHaveLength(2);
      const copy = rows.find((row) => row.id === data.id)!;
      expect(copy).toMatchObject({ webhook_id: id, event: original!.event, status: 'pending', attempts: 0, next_attempt_at: now });
      // Same body, byte for byte: its timestamp is the event's, not the redelivery's.
      const stored = await ctx.db.selectFrom('webhook_deliveries').select(['id', 'payload']).execute();
      const payloadOf = (deliveryId: string) => stored.find((row) => row.id === deliveryId)!.payload;
      expect(payloadOf(data.id)).toBe(payloadOf(original!.id));
      expect(copy.payload.timestamp).toBe(START);
      // The original is untouched; the new one is the webhook's last delivery and first in its list.
      expect(rows.find((row) => row.id === original!.id)).toMatchObject({ status: 'failed', attempts: 7 });
      expect((await api('GET', `${hookUrl(id)}/deliveries`)).json().data[0].id).toBe(data.id);
      expect((await api('GET', hookUrl(id))).json().data.last_delivery).toEqual({ status: 'pending', response_status: null, at: now });
    });
  });

  describe('the outbox: events recorded as deliveries with the change that causes them', () => {
    const project = () => ({ id: projectId, name: 'Shop' });
    const rename = async (name: string) =>
      expect((await api('PUT', `/api/v1/projects/${projectId}`, owner.token, { name, framework_version: '11' })).statusCode).toBe(200);
    /** Deliveries of one event, stored for `webhookId`. */
    const deliveriesOf = async (webhookId: string, event: string) => (await deliveryRows(webhookId)).filter((row) => row.event === event);

    /** Asserts one pending delivery due now, with `{type, timestamp, data}`; returns `data`. */
    function expectDue(rows: Awaited<ReturnType<typeof deliveryRows>>, event: string): Record<string, any> {
      expect(rows).toHaveLength(1);
      const now = ctx.clock.now().toISOString();
      const [row] = rows;
      expect(row).toMatchObject({
        event,
        status: 'pending',
        attempts: 0,
        response_status: null,
        error: null,
        next_attempt_at: now,
        delivered_at: null,
        created_at: now,
      });
      expect(Object.keys(row!.payload).sort()).toEqual(['data', 'timestamp', 'type']);
      expect(row!.payload.type).toBe(event);
      expect(row!.payload.timestamp).toBe(now);
      expect(row!.payload.timestamp).toMatch(ISO_UTC);
      expect(row!.payload.data.project).toEqual(project());
      return row!.payload.data;
    }

    it('report.created: {project, report} with report as the report list shows it; no gate_failed when the gate passes', async () => {
      const created = await createId({ events: ['report.created', 'report.gate_failed'] });
      const gateOnly = await createId({ events: ['report.gate_failed'] });
      ctx.clock.advance(7000);
      await uploadOk(ctx, apiToken, uploadBody([result('sql-injection', 'failed', ['critical']), result('csrf-protection', 'passed')]));
      const data = expectDue(await deliveriesOf(created, 'report.created'), 'report.created');
      expect(Object.keys(data).sort()).toEqual(['project', 'report']);
      const [listed] = (await api('GET', `/api/v1/projects/${projectId}/reports`)).json().data;
      expect(data.report).toEqual(listed);
      expect(data.report).toHaveProperty('changes');
      expect(data.report.gate).toMatchObject({ passed: true });
      expect(await deliveryRows(gateOnly)).toEqual([]);
      expect(await deliveriesOf(created, 'report.gate_failed')).toEqual([]);
    });

    it('report.gate_failed: the same data, only when the gate failed, next to report.created', async () => {
      const both = await createId({ events: ['report.gate_failed', 'report.created'] });
      const gateOnly = await createId({ events: ['report.gate_failed'] });
      await setGate(ctx, owner, projectId, { fail_on: 'high' });
      await rename('Shop'); // setGate renames the project
      await uploadOk(ctx, apiToken, uploadBody([result('sql-injection', 'failed', ['critical'])]));
      const [listed] = (await api('GET', `/api/v1/projects/${projectId}/reports`)).json().data;
      expect(listed.gate.passed).toBe(false);
      const failed = expectDue(await deliveriesOf(gateOnly, 'report.gate_failed'), 'report.gate_failed');
      expect(failed).toEqual({ project: project(), report: listed });
      expect(expectDue(await deliveriesOf(both, 'report.gate_failed'), 'report.gate_failed')).toEqual(failed);
      expect(expectDue(await deliveriesOf(both, 'report.created'), 'report.created')).toEqual(failed);
      expect(await deliveryRows(gateOnly)).toHaveLength(1);
      // A passing upload afterwards: report.created only.
      await setGate(ctx, owner, projectId, { fail_on: null });
      await rename('Shop');
      await uploadOk(ctx, apiToken, uploadBody([result('csrf-protection', 'passed')]));
      expect(await deliveryRows(gateOnly)).toHaveLength(1);
      expect(await deliveriesOf(both, 'report.created')).toHaveLength(2);
    });

    it('run.failed: {project, failure} with the failure as the failure list shows it', async () => {
      const id = await createId({ events: ['run.failed'] });
      const response = await ctx.request({
        method: 'POST',
        url: '/api/reports/failure',
        token: apiToken,
        body: loadFixture('failure', projectId),
      });
      expect(response.statusCode, response.body).toBe(201);
      const data = expectDue(await deliveryRows(id), 'run.failed');
      const [listed] = (await api('GET', `/api/v1/projects/${projectId}/failures`)).json().data;
      expect(data).toEqual({ project: project(), failure: listed });
    });

    it('project.token_regenerated: {project}, never the token', async () => {
      const id = await createId({ events: ['project.token_regenerated'] });
      const response = await api('POST', `/api/v1/projects/${projectId}/regenerate-token`);
      expect(response.statusCode).toBe(200);
      expect(expectDue(await deliveryRows(id), 'project.token_regenerated')).toEqual({ project: project() });
      expect(JSON.stringify(await deliveryRows(id))).not.toContain(response.json().api_token);
    });

    it('project.archived: {project}, once; unarchiving sends nothing; the project’s current name is sent', async () => {
      const id = await createId({ events: ['project.archived'] });
      await rename('Shop');
      expect((await api('POST', `/api/v1/projects/${projectId}/archive`)).statusCode).toBe(200);
      expect(expectDue(await deliveryRows(id), 'project.archived')).toEqual({ project: project() });
      // Archiving again changes nothing: no second event. Unarchiving: none either.
      expect((await api('POST', `/api/v1/projects/${projectId}/archive`)).statusCode).toBe(200);
      expect((await api('POST', `/api/v1/projects/${projectId}/unarchive`)).statusCode).toBe(200);
      expect(await deliveryRows(id)).toHaveLength(1);
      // A renamed project is named as it is at the event.
      await rename('Shop 2');
      expect((await api('POST', `/api/v1/projects/${projectId}/archive`)).statusCode).toBe(200);
      expect((await deliveryRows(id)).at(-1)!.payload.data.project).toEqual({ id: projectId, name: 'Shop 2' });
    });

    it('goes to every active webhook of the project subscribed to the event, and to no other', async () => {
      const subscribed = await createId({ events: ['ping', 'project.token_regenerated'] });
      const also = await createId({ events: ['project.token_regenerated'] });
      const notSubscribed = await createId({ events: ['report.created', 'project.archived', 'run.failed', 'report.gate_failed', 'ping'] });
      const inactive = await createId({ events: ['project.token_regenerated'] });
      expect((await api('PUT', hookUrl(inactive), owner.token, { active: false })).statusCode).toBe(200);
      const otherProject = (await ctx.given.project(owner, { name: 'Other' })).project.id;
      const elsewhere = await createId({ events: ['project.token_regenerated'] }, otherProject);

      expect((await api('POST', `/api/v1/projects/${projectId}/regenerate-token`)).statusCode).toBe(200);
      expect((await deliveryRows()).map((row) => row.webhook_id).sort()).toEqual([subscribed, also].sort());
      for (const hook of [notSubscribed, inactive, elsewhere]) expect(await deliveryRows(hook)).toEqual([]);
      // Both get the same body (one event).
      const [a, b] = await deliveryRows();
      expect(a!.payload).toEqual(b!.payload);
      expect(a!.id).not.toBe(b!.id);
    });

    it('a change that is refused records no event', async () => {
      const id = await createId({ events: ALL_EVENTS });
      const reader = await ctx.given.token(owner, { abilities: ['read'] });
      expect((await api('POST', `/api/v1/projects/${projectId}/regenerate-token`, reader)).statusCode).toBe(403);
      expect((await api('POST', `/api/v1/projects/${projectId}/archive`, reader)).statusCode).toBe(403);
      expect((await ctx.request({ method: 'POST', url: '/api/reports', token: apiToken, body: { results: 'x' } })).statusCode).toBe(422);
      expect((await api('POST', `/api/v1/projects/${projectId}/archive`)).statusCode).toBe(200);
      const archivedUpload = await ctx.request({
        method: 'POST',
        url: '/api/reports',
        token: apiToken,
        body: uploadBody([result('csrf-protection', 'passed')]),
      });
      expect(archivedUpload.statusCode).toBeGreaterThanOrEqual(400);
      expect((await deliveryRows(id)).map((row) => row.event)).toEqual(['project.archived']);
    });

    it('is written in the change’s transaction: when the event cannot be stored, the change is rolled back', async () => {
      await createId({ events: ['project.token_regenerated'] });
      const before = await ctx.db.selectFrom('projects').select('api_token_hash').where('id', '=', projectId).executeTakeFirstOrThrow();
      expect(before.api_token_hash).toBe(sha256(apiToken));
      const audits = (await auditEvents()).length;
      await sql`ALTER TABLE webhook_deliveries RENAME TO webhook_deliveries_away`.execute(ctx.db);
      let failed: LightMyRequestResponse;
      try {
        failed = await api('POST', `/api/v1/projects/${projectId}/regenerate-token`);
      } finally {
        await sql`ALTER TABLE webhook_deliveries_away RENAME TO webhook_deliveries`.execute(ctx.db);
      }
      expect(failed.statusCode).toBe(500);
      // The token was not replaced, and no audit event says it was.
      const after = await ctx.db.selectFrom('projects').select('api_token_hash').where('id', '=', projectId).executeTakeFirstOrThrow();
      expect(after.api_token_hash).toBe(before.api_token_hash);
      expect(await auditEvents()).toHaveLength(audits);
      await uploadOk(ctx, apiToken, uploadBody([result('csrf-protection', 'passed')]));
    });
  });
});
