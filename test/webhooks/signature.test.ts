import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateWebhookSecret, webhookSignature } from '../../src/webhooks/signature.js';

/**
 * E6: the signature checked by implementations that share no code with src/webhooks/signature.ts:
 * the official `standardwebhooks` npm package, and the README's own Node.js example (node:crypto
 * only), loaded from README.md itself so that the code people copy is the code tested.
 */

const README = resolve(import.meta.dirname, '../../README.md');

/** The verification function of the README's "Verifying the signature" Node.js example. */
type ReadmeVerify = (secret: string, headers: Record<string, string | undefined>, rawBody: string | Buffer) => boolean;

/** The first ```js block of the README's "## Webhooks" section, as written. */
async function readmeNodeExample(): Promise<string> {
  const text = await readFile(README, 'utf8');
  const start = text.indexOf('\n## Webhooks\n');
  if (start === -1) throw new Error('README.md has no "## Webhooks" section');
  const end = text.indexOf('\n## ', start + 1);
  const section = text.slice(start, end === -1 ? undefined : end);
  const match = /```js\n([\s\S]*?)```/.exec(section);
  if (!match) throw new Error('the "## Webhooks" section of README.md has no ```js block');
  return match[1]!;
}

/** The README's example, written to a module file of its own and imported: the test runs its very text. */
async function loadReadmeVerify(): Promise<{ verifyWebhook: ReadmeVerify; cleanup: () => Promise<void> }> {
  const code = await readmeNodeExample();
  // It is the example as written: nothing but node:crypto, and the function the README shows.
  expect([...code.matchAll(/^import .* from '([^']+)';$/gm)].map((match) => match[1])).toEqual(['node:crypto']);
  expect(code).toContain('export function verifyWebhook(secret, headers, rawBody)');
  const dir = await mkdtemp(join(tmpdir(), 'scoreboard-readme-webhook-'));
  const file = join(dir, 'verify-webhook.mjs');
  await writeFile(file, code);
  const { verifyWebhook } = (await import(/* @vite-ignore */ pathToFileURL(file).href)) as { verifyWebhook: ReadmeVerify };
  return { verifyWebhook, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

const body = JSON.stringify({
  type: 'report.gate_failed',
  timestamp: '2026-05-13T09:00:00.000Z',
  data: { project: { id: '0199a1b2-0000-7000-8000-000000000001', name: 'Shöp "north" ✓' }, report: { score: 87 } },
});
const id = '0199a1b2-0000-7000-8000-0000000000ff';
const nowSeconds = () => Math.floor(Date.now() / 1000);

/** The three signature headers, as the delivery worker names them (delivery-worker.ts, headersFor). */
function headers(secrets: readonly string[], timestamp = nowSeconds(), payload = body, deliveryId = id): Record<string, string> {
  return {
    'webhook-id': deliveryId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': webhookSignature(secrets, deliveryId, timestamp, payload),
  };
}

describe('webhookSignature, against the Standard Webhooks reference', () => {
  it("reproduces the specification's published test vector", () => {
    const signature = webhookSignature(
      ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
      'msg_p5jXN8AQM9LWM0D4loKWxJek',
      1614265330,
      '{"test": 2432232314}',
    );
    expect(signature).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('signs exactly as the standardwebhooks package does', () => {
    const secret = generateWebhookSecret();
    const timestamp = nowSeconds();
    expect(webhookSignature([secret], id, timestamp, body)).toBe(new Webhook(secret).sign(id, new Date(timestamp * 1000), body));
  });
});

describe('the standardwebhooks package verifies what the service sends', () => {
  const secret = generateWebhookSecret();
  const receiver = new Webhook(secret);

  it('accepts a delivery, and hands back the parsed body', () => {
    expect(receiver.verify(body, headers([secret]))).toEqual(JSON.parse(body));
    // Header names are case-insensitive on the wire.
    const sent = headers([secret]);
    const capitalised = Object.fromEntries(
      Object.entries(sent).map(([name, value]) => [name.replace(/^w|-\w/g, (c) => c.toUpperCase()), value]),
    );
    expect(receiver.verify(Buffer.from(body), capitalised)).toEqual(JSON.parse(body));
  });

  it('refuses a tampered body', () => {
    const sent = headers([secret]);
    expect(() => receiver.verify(body.replace('87', '88'), sent)).toThrow(WebhookVerificationError);
    expect(() => receiver.verify(`${body} `, sent)).toThrow('No matching signature found');
  });

  it('refuses a delivery signed with another secret', () => {
    expect(() => receiver.verify(body, headers([generateWebhookSecret()]))).toThrow('No matching signature found');
  });

  it('refuses the signature under another webhook-id, or another timestamp', () => {
    const sent = headers([secret]);
    expect(() => receiver.verify(body, { ...sent, 'webhook-id': `${id}0` })).toThrow('No matching signature found');
    expect(() => receiver.verify(body, { ...sent, 'webhook-timestamp': String(Number(sent['webhook-timestamp']) - 1) })).toThrow(
      'No matching signature found',
    );
  });

  it('accepts a timestamp within its 5-minute tolerance and refuses one outside it, signed or not', () => {
    expect(receiver.verify(body, headers([secret], nowSeconds() - 290))).toEqual(JSON.parse(body));
    expect(receiver.verify(body, headers([secret], nowSeconds() + 290))).toEqual(JSON.parse(body));
    expect(() => receiver.verify(body, headers([secret], nowSeconds() - 310))).toThrow('Message timestamp too old');
    expect(() => receiver.verify(body, headers([secret], nowSeconds() + 310))).toThrow('Message timestamp too new');
  });

  it('refuses a delivery without the signature headers', () => {
    const { 'webhook-signature': _omitted, ...unsigned } = headers([secret]);
    expect(() => receiver.verify(body, unsigned)).toThrow('Missing required headers');
  });
});

describe("the README's Node.js example (node:crypto only) verifies what the service sends", () => {
  let verifyWebhook: ReadmeVerify;
  let cleanup: (() => Promise<void>) | undefined;
  const secret = generateWebhookSecret();

  beforeAll(async () => {
    ({ verifyWebhook, cleanup } = await loadReadmeVerify());
  });
  afterAll(async () => {
    await cleanup?.();
  });

  it('accepts a delivery, with the body as a string or as the Buffer a server reads', () => {
    expect(verifyWebhook(secret, headers([secret]), body)).toBe(true);
    expect(verifyWebhook(secret, headers([secret]), Buffer.from(body, 'utf8'))).toBe(true);
  });

  it('refuses a tampered body, another secret, another id or another timestamp', () => {
    const sent = headers([secret]);
    expect(verifyWebhook(secret, sent, body.replace('87', '88'))).toBe(false);
    expect(verifyWebhook(secret, sent, JSON.stringify(JSON.parse(body), null, 1))).toBe(false); // re-serialised
    expect(verifyWebhook(generateWebhookSecret(), sent, body)).toBe(false);
    expect(verifyWebhook(secret, { ...sent, 'webhook-id': `${id}0` }, body)).toBe(false);
    expect(verifyWebhook(secret, { ...sent, 'webhook-timestamp': String(Number(sent['webhook-timestamp']) + 1) }, body)).toBe(false);
  });

  it('refuses a timestamp more than 5 minutes away, even correctly signed', () => {
    expect(verifyWebhook(secret, headers([secret], nowSeconds() - 290), body)).toBe(true);
    expect(verifyWebhook(secret, headers([secret], nowSeconds() - 310), body)).toBe(false);
    expect(verifyWebhook(secret, headers([secret], nowSeconds() + 310), body)).toBe(false);
  });

  it('refuses missing or malformed headers without throwing', () => {
    const sent = headers([secret]);
    expect(verifyWebhook(secret, {}, body)).toBe(false);
    expect(verifyWebhook(secret, { ...sent, 'webhook-signature': undefined }, body)).toBe(false);
    expect(verifyWebhook(secret, { ...sent, 'webhook-timestamp': undefined }, body)).toBe(false);
    expect(verifyWebhook(secret, { ...sent, 'webhook-timestamp': 'soon' }, body)).toBe(false);
    expect(verifyWebhook(secret, { ...sent, 'webhook-signature': sent['webhook-signature']!.replace('v1,', 'v2,') }, body)).toBe(false);
    expect(verifyWebhook(secret, { ...sent, 'webhook-signature': sent['webhook-signature']!.slice(0, -2) }, body)).toBe(false);
    expect(verifyWebhook(secret, { ...sent, 'webhook-signature': '' }, body)).toBe(false);
  });
});

describe('rotation: two secrets sign at once', () => {
  const newSecret = generateWebhookSecret();
  const oldSecret = generateWebhookSecret();

  it('sends two space-separated v1 entries, one per secret, in the order given', () => {
    const timestamp = nowSeconds();
    const header = webhookSignature([newSecret, oldSecret], id, timestamp, body);
    const entries = header.split(' ');
    expect(entries).toHaveLength(2);
    for (const entry of entries) expect(entry).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(entries).toEqual([webhookSignature([newSecret], id, timestamp, body), webhookSignature([oldSecret], id, timestamp, body)]);
  });

  it('a receiver holding either secret verifies; one holding neither does not', () => {
    const sent = headers([newSecret, oldSecret]);
    for (const secret of [newSecret, oldSecret]) expect(new Webhook(secret).verify(body, sent)).toEqual(JSON.parse(body));
    expect(() => new Webhook(generateWebhookSecret()).verify(body, sent)).toThrow('No matching signature found');
  });

  it("the README's example verifies with either secret too", async () => {
    const { verifyWebhook, cleanup } = await loadReadmeVerify();
    try {
      const sent = headers([newSecret, oldSecret]);
      expect(verifyWebhook(newSecret, sent, body)).toBe(true);
      expect(verifyWebhook(oldSecret, sent, body)).toBe(true);
      expect(verifyWebhook(generateWebhookSecret(), sent, body)).toBe(false);
    } finally {
      await cleanup();
    }
  });
});

describe('generateWebhookSecret', () => {
  it('is whsec_ and the base64 of 32 random bytes, different every time', () => {
    const secrets = Array.from({ length: 50 }, () => generateWebhookSecret());
    for (const secret of secrets) {
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      const bytes = Buffer.from(secret.slice('whsec_'.length), 'base64');
      expect(bytes).toHaveLength(32);
      expect(bytes.toString('base64')).toBe(secret.slice('whsec_'.length)); // canonical base64
    }
    expect(new Set(secrets).size).toBe(secrets.length);
  });

  it('is accepted as a key by the standardwebhooks package', () => {
    expect(() => new Webhook(generateWebhookSecret())).not.toThrow();
  });
});
