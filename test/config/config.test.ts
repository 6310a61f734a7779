/**
 * D21: configuration from the environment; a bad value stops start-up with a message naming it.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { emailConfigured, ENV_VARIABLES, loadConfig } from '../../src/config.js';
import {
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_STATEMENT_TIMEOUT_MS,
  KEEPALIVE_INITIAL_DELAY_MS,
  postgresTimeouts,
} from '../../src/db/database.js';

const ROOT = resolve(import.meta.dirname, '../..');

describe('loadConfig defaults (D21)', () => {
  it('uses the documented defaults for an empty environment', () => {
    expect(loadConfig({})).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      databaseUrl: 'sqlite:./data/scoreboard.db',
      redisUrl: undefined,
      publicUrl: undefined,
      trustProxy: false,
      logLevel: 'info',
      databasePoolMax: 10,
      databaseStatementTimeoutMs: 10_000,
      databaseConnectTimeoutMs: 5_000,
      redisKeyPrefix: 'scoreboard:rl:',
      redisCommandTimeoutMs: 500,
      uploadRateLimit: 60,
      badgeRateLimit: 600,
      auditRetentionDays: 365,
      shutdownTimeoutMs: 15_000,
      httpHeadersTimeoutMs: 10_000,
      httpRequestTimeoutMs: 30_000,
    });
  });

  it('bounds every wait on the database within 10 s by default (D37)', () => {
    const config = loadConfig({});
    const statement = postgresTimeouts(config.databaseStatementTimeoutMs);
    // The client gives up on a statement (a silent connection) and on getting a connection within
    // 10 s; the server cancels a slow statement first, so a working connection is kept.
    expect(statement.client).toBeGreaterThan(0);
    expect(statement.client).toBeLessThanOrEqual(10_000);
    expect(statement.server).toBeGreaterThan(0);
    expect(statement.server).toBeLessThan(statement.client);
    expect(config.databaseConnectTimeoutMs).toBeLessThanOrEqual(10_000);
    expect(KEEPALIVE_INITIAL_DELAY_MS).toBeLessThanOrEqual(10_000);
    expect(DEFAULT_STATEMENT_TIMEOUT_MS).toBe(config.databaseStatementTimeoutMs);
    expect(DEFAULT_CONNECT_TIMEOUT_MS).toBe(config.databaseConnectTimeoutMs);
  });

  it('treats blank values as unset', () => {
    expect(loadConfig({ PORT: '', PUBLIC_URL: '', TRUST_PROXY: '', LOG_LEVEL: '' })).toMatchObject({
      port: 3000,
      publicUrl: undefined,
      trustProxy: false,
      logLevel: 'info',
    });
  });
});

describe('loadConfig overrides (D21)', () => {
  it('parses valid values of every variable', () => {
    const config = loadConfig({
      PORT: '8080',
      HOST: '0.0.0.0',
      DATABASE_URL: 'postgres://scoreboard:secret@db:5432/scoreboard',
      REDIS_URL: 'redis://cache:6379',
      PUBLIC_URL: 'https://scores.example.com',
      TRUST_PROXY: 'true',
      LOG_LEVEL: 'debug',
      DATABASE_POOL_MAX: '25',
      DATABASE_STATEMENT_TIMEOUT_MS: '5000',
      DATABASE_CONNECT_TIMEOUT_MS: '2000',
      REDIS_KEY_PREFIX: 'eu1:rl:',
      REDIS_COMMAND_TIMEOUT_MS: '250',
      UPLOAD_RATE_LIMIT: '120',
      BADGE_RATE_LIMIT: '1200',
      AUDIT_RETENTION_DAYS: '90',
      SHUTDOWN_TIMEOUT_MS: '30000',
      HTTP_HEADERS_TIMEOUT_MS: '5000',
      HTTP_REQUEST_TIMEOUT_MS: '120000',
    });
    expect(config).toMatchObject({
      httpHeadersTimeoutMs: 5000,
      httpRequestTimeoutMs: 120_000,
      databasePoolMax: 25,
      databaseStatementTimeoutMs: 5000,
      databaseConnectTimeoutMs: 2000,
      redisKeyPrefix: 'eu1:rl:',
      redisCommandTimeoutMs: 250,
      uploadRateLimit: 120,
      badgeRateLimit: 1200,
      auditRetentionDays: 90,
      shutdownTimeoutMs: 30_000,
      port: 8080,
      host: '0.0.0.0',
      databaseUrl: 'postgres://scoreboard:secret@db:5432/scoreboard',
      redisUrl: 'redis://cache:6379',
      publicUrl: 'https://scores.example.com',
      trustProxy: true,
      logLevel: 'debug',
    });
  });

  it('names the allowed values of LOG_LEVEL once when it is not one of them', () => {
    expect(() => loadConfig({ LOG_LEVEL: 'loud' })).toThrow(
      /^Invalid configuration: env\/LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent$/,
    );
  });

  it("refuses a header deadline later than the whole request's (Node would not start)", () => {
    expect(() => loadConfig({ HTTP_HEADERS_TIMEOUT_MS: '40000' })).toThrow(
      'env/HTTP_HEADERS_TIMEOUT_MS must not be larger than HTTP_REQUEST_TIMEOUT_MS',
    );
  });

  it.each(['127.0.0.1', '0.0.0.0', '::', '::1', 'fe80::1', 'localhost', 'scores.internal'])(
    'accepts HOST=%s (a name or an address, IPv6 too)',
    (host) => {
      expect(loadConfig({ HOST: host }).host).toBe(host);
    },
  );

  it.each([['sqlite::memory:'], ['sqlite:/var/lib/scoreboard/scoreboard.db'], ['postgresql://u:p@localhost/db']])(
    'accepts DATABASE_URL=%s',
    (url) => {
      expect(loadConfig({ DATABASE_URL: url }).databaseUrl).toBe(url);
    },
  );

  it.each(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])('accepts LOG_LEVEL=%s', (level) => {
    expect(loadConfig({ LOG_LEVEL: level }).logLevel).toBe(level);
  });

  it.each([
    ['false', false],
    ['0', false],
    ['true', true],
    ['2', 2],
    ['10.0.0.0/8', '10.0.0.0/8'],
  ] as const)('reads TRUST_PROXY=%s as %s (D8: off unless set)', (value, expected) => {
    expect(loadConfig({ TRUST_PROXY: value }).trustProxy).toBe(expected);
  });

  it('drops a trailing slash from PUBLIC_URL so D16 links do not double it', () => {
    expect(loadConfig({ PUBLIC_URL: 'https://scores.example.com/' }).publicUrl).toBe('https://scores.example.com');
  });
});

describe('loadConfig rejects bad values, naming the variable (D21)', () => {
  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['PORT', '-1'],
    ['PORT', '80.5'],
    ['DATABASE_URL', 'mysql://x'],
    ['DATABASE_URL', 'scoreboard.db'],
    ['LOG_LEVEL', 'loud'],
    ['PUBLIC_URL', 'notaurl'],
    ['PUBLIC_URL', 'ftp://scores.example.com'],
    ['REDIS_URL', 'http://cache:6379'],
    ['TRUST_PROXY', 'garbage!'],
    ['TRUST_PROXY', 'yes'],
    ['HOST', 'localhost:3000'],
    ['HOST', '10.0.0.1:80'],
    ['HOST', 'http://scores.internal'],
    ['DATABASE_CONNECT_TIMEOUT_MS', '0'],
    ['DATABASE_POOL_MAX', '0'],
    ['DATABASE_POOL_MAX', 'many'],
    ['DATABASE_STATEMENT_TIMEOUT_MS', '-1'],
    ['UPLOAD_RATE_LIMIT', '0'],
    ['BADGE_RATE_LIMIT', '0'],
    ['AUDIT_RETENTION_DAYS', '0'],
    ['AUDIT_RETENTION_DAYS', '1.5'],
    ['REDIS_COMMAND_TIMEOUT_MS', '0'],
    ['SHUTDOWN_TIMEOUT_MS', 'soon'],
  ])('throws for %s=%s', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(name);
  });
});

describe('the real process refuses to start with a bad value (D21)', () => {
  it('exits non-zero with a message naming PORT, without listening', () => {
    const cwd = mkdtempSync(join(tmpdir(), 'scoreboard-config-'));
    try {
      const result = spawnSync(process.execPath, [join(ROOT, 'bin/scoreboard.js'), 'serve'], {
        cwd: ROOT,
        env: { PATH: process.env.PATH, PORT: 'abc', DATABASE_URL: `sqlite:${join(cwd, 'never.db')}`, LOG_LEVEL: 'silent' },
        encoding: 'utf8',
        // Were the variable accepted, serve would listen forever: the timeout turns that into a failure.
        timeout: 90_000,
      });
      expect(result.signal).toBeNull();
      expect(result.status).not.toBe(0);
      expect(result.status).not.toBeNull();
      expect(result.stderr).toContain('PORT');
      expect(result.stderr).not.toMatch(/\n\s+at /);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});

describe('SMTP_URL and MAIL_FROM (E11.1)', () => {
  it('leaves email off by default, and on only when both are set', () => {
    expect(loadConfig({})).toMatchObject({ smtpUrl: undefined, mailFrom: undefined });
    expect(emailConfigured(loadConfig({}))).toBe(false);
    expect(emailConfigured(loadConfig({ SMTP_URL: 'smtp://127.0.0.1:1025' }))).toBe(false);
    expect(emailConfigured(loadConfig({ MAIL_FROM: 'a@example.com' }))).toBe(false);
    const both = loadConfig({ SMTP_URL: 'smtp://127.0.0.1:1025', MAIL_FROM: 'a@example.com' });
    expect(both).toMatchObject({ smtpUrl: 'smtp://127.0.0.1:1025', mailFrom: 'a@example.com' });
    expect(emailConfigured(both)).toBe(true);
  });

  it.each([
    'smtp://127.0.0.1:1025',
    'smtp://smtp.example.com',
    'smtps://mailer:s%40cret@smtp.example.com:465',
    'smtp://apikey:SG.abc-def@smtp.sendgrid.net:587',
    'smtp://[::1]:25',
    'smtp://smtp.example.com:587?tls.rejectUnauthorized=false',
    'smtps://smtp.example.com:465/?pool=false',
  ])('takes SMTP_URL=%s', (value) => {
    expect(loadConfig({ SMTP_URL: value }).smtpUrl).toBe(value);
  });

  it.each(['Scoreboard <scoreboard@example.com>', 'scoreboard@example.com', '"Score, Board" <noreply@scores.example.com>'])(
    'takes MAIL_FROM=%s',
    (value) => {
      expect(loadConfig({ MAIL_FROM: value }).mailFrom).toBe(value);
    },
  );

  it.each([
    'http://smtp.example.com',
    'smtp.example.com:587',
    'smtp://',
    'smtp://user:pa ss@smtp.example.com',
    'smtp://user:topsecret@smtp.example.com:99999',
    'mailto:ops@example.com',
  ])('refuses SMTP_URL=%s with a message that names it and never repeats the value', (value) => {
    let message = '';
    try {
      loadConfig({ SMTP_URL: value });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/^Invalid configuration: env\/SMTP_URL must be smtp:\/\/host:port or smtps:\/\/host:port/);
    expect(message).not.toContain('topsecret');
    expect(message).not.toContain('pa ss');
  });

  it.each(['scoreboard', 'Scoreboard <scoreboard>', 'a@b@c', 'Scoreboard\r\nBcc: x@example.com <a@example.com>', '<a@example.com'])(
    'refuses MAIL_FROM=%j naming it',
    (value) => {
      expect(() => loadConfig({ MAIL_FROM: value })).toThrow(/env\/MAIL_FROM must be an email address/);
    },
  );
});

describe('.env.example', () => {
  const lines = readFileSync(new URL('../../.env.example', import.meta.url), 'utf8').split('\n');
  const set = Object.fromEntries(lines.filter((line) => /^[A-Z_]+=/.test(line)).map((line) => line.split(/=(.*)/s).slice(0, 2)));
  const commented = lines.flatMap((line) => /^# ([A-Z_]+)=/.exec(line)?.[1] ?? []);

  it('lists every variable the service reads, set or commented out', () => {
    expect([...Object.keys(set), ...commented].sort()).toEqual([...ENV_VARIABLES].sort());
  });

  it('sets each one to its default: read as the configuration, it is the configuration of an empty environment', () => {
    expect(loadConfig(set)).toEqual(loadConfig({}));
  });
});
