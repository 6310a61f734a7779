/**
 * E9.2 through the operator command, as real processes: `migrate` (like `serve`) seals the webhook
 * secrets stored before E9.2 with the configured key, and `secrets:reencrypt` refuses to run
 * without a key. (Rotation with secrets:reencrypt: test/webhooks/sealed-secrets.test.ts.)
 */
import { dirname, join } from 'node:path';
import { readFileSync } from 'node:fs';
import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSecretBox, generateSecretKey, parseSecretKey } from '../../src/secrets/secret-box.js';
import { generateWebhookSecret } from '../../src/webhooks/signature.js';
import { onPostgres } from '../helpers/test-backend.js';
import { createSandbox, expectOneLineFailure, ok, okJson, type Sandbox } from './cli-process.js';

describe('scoreboard migrate seals the webhook secrets stored before E9.2', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await createSandbox({ migrated: true });
  });
  afterAll(() => sandbox?.cleanup());

  it('with the configured key, each to the same plain text, once', async () => {
    const { team } = await okJson<{ team: { id: number } }>(sandbox, 'users:create', '--email', 'hooks@example.com');
    const [id, secret] = [uuidv7(), generateWebhookSecret()];
    const now = new Date().toISOString();
    await sandbox.withDb(async (db) => {
      const project = uuidv7();
      await db
        .insertInto('projects')
        .values({
          id: project,
          team_id: team.id,
          name: 'Shop',
          description: null,
          repository_url: null,
          framework_version: '11',
          settings: '{}',
          api_token_hash: 'x'.repeat(64),
          latest_report_id: null,
          badge_key: 'b'.repeat(32),
          archived_at: null,
          created_at: now,
          updated_at: now,
        })
        .execute();
      // As E6 stored it before E9.2: plain.
      await db
        .insertInto('webhooks')
        .values({
          id,
          project_id: project,
          url: 'https://hooks.example.com/x',
          events: '["ping"]',
          description: null,
          active: 1,
          secret,
          previous_secret: null,
          previous_secret_until: null,
          created_at: now,
          updated_at: now,
        })
        .execute();
    });
    const key = onPostgres ? generateSecretKey() : null;
    sandbox.env.SECRET_KEY = key ?? '';
    await ok(sandbox, 'migrate');
    // SQLite without SECRET_KEY: the key is the one migrate generated beside the database.
    const box = createSecretBox(parseSecretKey(key ?? readFileSync(join(dirname(sandbox.store.sqliteFile!), 'secret.key'), 'utf8')));
    const stored = () => sandbox.withDb((db) => db.selectFrom('webhooks').select('secret').where('id', '=', id).executeTakeFirstOrThrow());
    const { secret: sealed } = await stored();
    expect(box.isCurrent(sealed)).toBe(true);
    expect(box.open(sealed, `webhook:${id}`)).toBe(secret);
    await ok(sandbox, 'migrate');
    expect((await stored()).secret).toBe(sealed);
  });
});

describe.skipIf(!onPostgres)('scoreboard secrets:reencrypt without a key (PostgreSQL without SECRET_KEY)', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await createSandbox({ migrated: true });
  });
  afterAll(() => sandbox?.cleanup());

  it('fails with one line naming SECRET_KEY, and changes nothing', async () => {
    const result = await sandbox.cli('secrets:reencrypt');
    expectOneLineFailure(result, /^scoreboard: No SECRET_KEY is set, so no secret can be sealed: set SECRET_KEY/);
    expect(result.stdout).toBe('');
  });
});
