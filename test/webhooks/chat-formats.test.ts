/**
 * E11.5's renderers, pure: every event the webhooks send, in every chat format, checked against
 * the platform's documented payload shape and limits, in words, with links into the dashboard
 * from PUBLIC_URL, and with user text escaped for the platform's markup.
 *
 * - Teams: the official Adaptive Cards 1.5 JSON schema (test/fixtures/adaptive-card-1.5.json, from
 *   microsoft/AdaptiveCards, schemas/1.5.0/adaptive-card.json, MIT), and the workflow envelope.
 * - Slack: the Block Kit blocks the renderer uses, written from
 *   https://api.slack.com/reference/block-kit/blocks (header, section, actions, context),
 *   https://api.slack.com/reference/block-kit/composition-objects#text and
 *   https://api.slack.com/reference/block-kit/block-elements#button, with their limits.
 * - Discord: https://discord.com/developers/docs/resources/webhook#execute-webhook and
 *   https://discord.com/developers/docs/resources/message#embed-object-embed-limits.
 */
import { readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { Type, type TSchema } from 'typebox';
import { describe, expect, it } from 'vitest';
import { WEBHOOK_EVENTS, type WebhookEvent } from '../../src/webhooks/webhook-event-names.js';
import { eventPayload } from '../../src/webhooks/webhook-events.js';
import { deliveryBody } from '../../src/webhooks/chat/render.js';
import { chatMessage } from '../../src/webhooks/chat/chat-message.js';
import { clip } from '../../src/wire/plain-text.js';
import { escapeSlack } from '../../src/webhooks/chat/slack.js';

const PUBLIC_URL = 'https://scores.example.com';
const PROJECT_ID = '0193a7c2-6a41-7cc4-b1d2-5a3f0e9d8c01';
const REPORT_UUID = '0193a7c2-7000-7abc-8def-0123456789ab';
const FINGERPRINT = '3f2a9c1d4b5e6f708192a3b4c5d6e7f8';
const AT = new Date('2026-11-29T12:00:00.000Z');

const report = (gate: unknown) => ({
  id: 42,
  uuid: REPORT_UUID,
  score: 87,
  total: 120,
  passed: 110,
  failed: 6,
  warnings: 4,
  skipped: 0,
  errors: 0,
  total_issues: 10,
  issues_by_severity: { critical: 1, high: 2, medium: 3, low: 4, info: 0 },
  framework_version: '11.44.2',
  package_version: '1.13.3.0',
  total_execution_time: 12.5,
  triggered_by: 'ci_cd',
  analyzed_at: AT.toISOString(),
  created_at: AT.toISOString(),
  branch: 'feature/login',
  commit: 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678',
  pull_request: '17',
  base_branch: 'main',
  gate,
  changes: { baseline: null, new: 3, fixed: 1, unchanged: 7 },
});
const failedGate = { passed: false, reasons: ['The score 87 is below 90.', '1 critical issue'], dismissed: 0 };

/** E6's `data` for each event, as the services write it (webhook-events.ts adds `project`). */
const DATA: Record<WebhookEvent, Record<string, unknown>> = {
  'report.created': { report: report({ passed: true, reasons: [], dismissed: 0 }) },
  'report.gate_failed': { report: report(failedGate) },
  'run.failed': {
    failure: {
      id: 7,
      uuid: '0193a7c2-8000-7abc-8def-0123456789ab',
      failure_reason: 'uncaught_exception',
      failure_label: 'Uncaught exception during analysis',
      error_message: 'Class "App\\Foo" not found',
      triggered_by: 'ci_cd',
      framework_version: '11.44.2',
      package_version: '1.13.3.0',
      occurred_at: AT.toISOString(),
      metadata: {},
      created_at: AT.toISOString(),
    },
  },
  'project.token_regenerated': {},
  'project.archived': {},
  'issue.updated': {
    state: {
      fingerprint: FINGERPRINT,
      status: 'false_positive',
      comment: 'Checked by hand: the input is escaped upstream.',
      assignee: { id: 3, name: 'Ada' },
      expires_at: null,
      updated_by: { id: 2, name: 'Grace' },
      updated_at: AT.toISOString(),
      last_seen_report: { uuid: REPORT_UUID, analyzed_at: AT.toISOString() },
      previous_fingerprints: [],
      ticket: null,
      issue: {
        analyzer_id: 'xss',
        analyzer_name: 'XSS',
        category: 'security',
        severity: 'high',
        message: 'Unescaped output',
        location: { file: 'resources/views/home.blade.php', line: 12 },
      },
    },
  },
  ping: { webhook: { id: '0193a7c2-9000-7abc-8def-0123456789ab' } },
};

const payloadOf = (event: WebhookEvent, data = DATA[event], projectName = 'Shop') =>
  eventPayload(event, AT, { project: { id: PROJECT_ID, name: projectName }, ...data });

/** Each event's words and the dashboard pages it links to. */
const EXPECTED: Record<WebhookEvent, { title: RegExp; links: string[] }> = {
  'report.created': { title: /^New report for Shop: 87\/100$/, links: [`/reports/${REPORT_UUID}`, `/projects/${PROJECT_ID}`] },
  'report.gate_failed': { title: /^Quality gate failed for Shop$/, links: [`/reports/${REPORT_UUID}`, `/projects/${PROJECT_ID}`] },
  'run.failed': { title: /^A run failed for Shop$/, links: [`/projects/${PROJECT_ID}/failed-runs`] },
  'project.token_regenerated': { title: /^The project token of Shop was regenerated$/, links: [`/projects/${PROJECT_ID}`] },
  'project.archived': { title: /^Shop was archived$/, links: [`/projects/${PROJECT_ID}`] },
  'issue.updated': {
    title: /^An issue in Shop is now false positive$/,
    links: [`/reports/${REPORT_UUID}#issue-${FINGERPRINT}`, `/projects/${PROJECT_ID}/issues`],
  },
  ping: { title: /^Ping from Scoreboard for Shop$/, links: [`/projects/${PROJECT_ID}`] },
};

// --- Validators -------------------------------------------------------------------------------

const ajv = new Ajv({ allErrors: true, strict: false });
(addFormats as unknown as (ajv: Ajv) => Ajv)(ajv);
ajv.addMetaSchema(JSON.parse(readFileSync(new URL('../../node_modules/ajv/dist/refs/json-schema-draft-06.json', import.meta.url), 'utf8')));
// The file as published; it names itself with draft-04's `id`, which Ajv 8 reads as `$id` only.
const { id: cardSchemaId, ...adaptiveCardSchema } = JSON.parse(
  readFileSync(new URL('../fixtures/adaptive-card-1.5.json', import.meta.url), 'utf8'),
);
const validCard = ajv.compile({ $id: cardSchemaId, ...adaptiveCardSchema });

const Str = (max: number, min = 1) => Type.String({ minLength: min, maxLength: max });
const closed = (properties: Record<string, TSchema>, required?: string[]) =>
  Type.Object(properties, { additionalProperties: false, ...(required && { required }) });

// Slack Block Kit: a text object; `plain_text` or `mrkdwn`.
const slackText = (max: number) =>
  closed({ type: Type.Union([Type.Literal('plain_text'), Type.Literal('mrkdwn')]), text: Str(max), emoji: Type.Optional(Type.Boolean()) });
const slackPlain = (max: number) => closed({ type: Type.Literal('plain_text'), text: Str(max), emoji: Type.Optional(Type.Boolean()) });
const SlackBlock = Type.Union([
  closed({ type: Type.Literal('header'), text: slackPlain(150), block_id: Type.Optional(Str(255)) }),
  closed({
    type: Type.Literal('section'),
    text: Type.Optional(slackText(3000)),
    fields: Type.Optional(Type.Array(slackText(2000), { minItems: 1, maxItems: 10 })),
    block_id: Type.Optional(Str(255)),
  }),
  closed({
    type: Type.Literal('actions'),
    elements: Type.Array(
      closed({
        type: Type.Literal('button'),
        text: slackPlain(75),
        url: Type.String({ maxLength: 3000, format: 'uri' }),
        action_id: Str(255),
      }),
      { minItems: 1, maxItems: 25 },
    ),
    block_id: Type.Optional(Str(255)),
  }),
  closed({ type: Type.Literal('context'), elements: Type.Array(slackText(3000), { minItems: 1, maxItems: 10 }) }),
]);
const SlackMessage = closed({ text: Str(40_000), blocks: Type.Array(SlackBlock, { minItems: 1, maxItems: 50 }) }, ['text', 'blocks']);
const validSlack = ajv.compile(SlackMessage);

// Discord execute-webhook, with one or more embeds.
const DiscordEmbed = closed({
  title: Type.Optional(Str(256)),
  description: Type.Optional(Str(4096)),
  url: Type.Optional(Type.String({ format: 'uri' })),
  color: Type.Optional(Type.Integer({ minimum: 0, maximum: 0xffffff })),
  timestamp: Type.Optional(Type.String({ format: 'date-time' })),
  footer: Type.Optional(closed({ text: Str(2048) })),
  fields: Type.Optional(Type.Array(closed({ name: Str(256), value: Str(1024), inline: Type.Optional(Type.Boolean()) }), { maxItems: 25 })),
});
const DiscordMessage = closed(
  {
    content: Type.Optional(Str(2000)),
    embeds: Type.Optional(Type.Array(DiscordEmbed, { maxItems: 10 })),
    allowed_mentions: closed({ parse: Type.Array(Type.Never(), { maxItems: 0 }) }),
  },
  ['allowed_mentions'],
);
const validDiscordShape = ajv.compile(DiscordMessage);
/** Discord: an embed's title, description, field names and values, footer and author together at most 6000 characters. */
const embedCharacters = (embed: Record<string, any>) =>
  (embed.title ?? '').length +
  (embed.description ?? '').length +
  (embed.footer?.text ?? '').length +
  ((embed.fields ?? []) as { name: string; value: string }[]).reduce((sum, field) => sum + field.name.length + field.value.length, 0);

const TeamsEnvelope = closed(
  {
    type: Type.Literal('message'),
    attachments: Type.Array(
      closed({
        contentType: Type.Literal('application/vnd.microsoft.card.adaptive'),
        contentUrl: Type.Null(),
        content: Type.Object({ type: Type.Literal('AdaptiveCard'), version: Type.Literal('1.5') }),
      }),
      { minItems: 1, maxItems: 1 },
    ),
  },
  ['type', 'attachments'],
);
const validTeamsEnvelope = ajv.compile(TeamsEnvelope);

const expectValid = (validate: ValidateFunction, body: unknown) => {
  const ok = validate(body);
  expect(ok, JSON.stringify(validate.errors, null, 1)).toBe(true);
};

function validate(format: 'slack' | 'teams' | 'discord', body: any) {
  if (format === 'slack') expectValid(validSlack, body);
  if (format === 'discord') {
    expectValid(validDiscordShape, body);
    for (const embed of body.embeds) expect(embedCharacters(embed)).toBeLessThanOrEqual(6000);
  }
  if (format === 'teams') {
    expectValid(validTeamsEnvelope, body);
    expectValid(validCard, body.attachments[0].content);
    // Teams refuses messages over about 28 KB.
    expect(Buffer.byteLength(JSON.stringify(body))).toBeLessThan(28 * 1024);
  }
}

/** Every link a rendered body holds. */
function linksOf(format: 'slack' | 'teams' | 'discord', body: any): string[] {
  if (format === 'slack')
    return body.blocks.filter((block: any) => block.type === 'actions').flatMap((block: any) => block.elements.map((e: any) => e.url));
  if (format === 'teams') return (body.attachments[0].content.actions ?? []).map((action: any) => action.url);
  return [...(body.embeds[0].description as string).matchAll(/\]\(([^)]+)\)/g)].map((match) => match[1]!);
}

const FORMATS = ['slack', 'teams', 'discord'] as const;

describe('chat formats (E11.5)', () => {
  it('covers every event the webhooks send', () => {
    expect(Object.keys(DATA).sort()).toEqual([...WEBHOOK_EVENTS].sort());
  });

  it('standard is the stored body itself, byte for byte', () => {
    for (const event of WEBHOOK_EVENTS) expect(deliveryBody('standard', payloadOf(event), PUBLIC_URL)).toBe(payloadOf(event));
  });

  describe.each(FORMATS)('%s', (format) => {
    it.each([...WEBHOOK_EVENTS])('%s: the documented shape, in words, with dashboard links', (event) => {
      const body = JSON.parse(deliveryBody(format, payloadOf(event), PUBLIC_URL));
      validate(format, body);
      const { title, links } = EXPECTED[event];
      const message = chatMessage(payloadOf(event), PUBLIC_URL);
      expect(message.title).toMatch(title);
      expect(message.summary.length).toBeGreaterThan(0);
      expect(linksOf(format, body)).toEqual(links.map((path) => PUBLIC_URL + path));
      const text = JSON.stringify(body);
      expect(text).toContain('Shop');
      if (format === 'slack') expect(body.text).toContain(`*${message.title}*`);
      if (format === 'discord') expect(body.content).not.toBe('');
    });

    it('without PUBLIC_URL: still valid, with no links', () => {
      for (const event of WEBHOOK_EVENTS) {
        const body = JSON.parse(deliveryBody(format, payloadOf(event), undefined));
        validate(format, body);
        expect(linksOf(format, body)).toEqual([]);
      }
    });

    it('the worst text stays within the limits: a long, marked-up project name, a long error, many gate reasons', () => {
      const name = `<!channel> @everyone *bold* _it_ [x](https://evil.example) & ${'é'.repeat(400)} ${'😀'.repeat(300)}`;
      const longError = `${'<tag> & '.repeat(2000)}@here`;
      const reasons = Array.from({ length: 200 }, (_, i) => `Reason ${i}: ${'x<&>'.repeat(300)}`);
      const payloads = [
        ...WEBHOOK_EVENTS.map((event) => payloadOf(event, DATA[event], name)),
        payloadOf('run.failed', { failure: { ...(DATA['run.failed'].failure as object), error_message: longError } }, name),
        payloadOf('report.gate_failed', { report: { ...report({ ...failedGate, reasons }), branch: 'b'.repeat(5000) } }, name),
        payloadOf('issue.updated', {
          state: { ...(DATA['issue.updated'].state as object), comment: '*'.repeat(5000), issue: { message: '<'.repeat(5000) } },
        }),
      ];
      for (const payload of payloads) validate(format, JSON.parse(deliveryBody(format, payload, PUBLIC_URL)));
    });

    it('reads an old or partial body leniently: missing fields are left out, never an error', () => {
      for (const event of WEBHOOK_EVENTS) {
        const body = JSON.parse(deliveryBody(format, JSON.stringify({ type: event, timestamp: AT.toISOString(), data: {} }), PUBLIC_URL));
        validate(format, body);
      }
      validate(format, JSON.parse(deliveryBody(format, JSON.stringify({ type: 'report.created', data: { report: null } }), PUBLIC_URL)));
    });
  });

  describe('escaping', () => {
    const name = '<!channel> & <https://evil.example|click> *x* @everyone [a](b)';

    it('Slack: &, < and > are escaped in every mrkdwn text; plain_text is left as it is', () => {
      const body = JSON.parse(deliveryBody('slack', payloadOf('ping', DATA.ping, name), PUBLIC_URL));
      expect(body.text).toContain('&lt;!channel&gt; &amp; &lt;https://evil.example|click&gt;');
      expect(body.text).not.toContain('<!channel>');
      expect(body.blocks[0]).toEqual({
        type: 'header',
        text: { type: 'plain_text', text: `Ping from Scoreboard for ${name}`, emoji: false },
      });
      // The only raw `<` in the text opens the dashboard links.
      expect([...body.text.matchAll(/</g)]).toHaveLength(1);
      expect(body.text).toContain(`<${PUBLIC_URL}/projects/${PROJECT_ID}|Open the project>`);
    });

    it('Discord: markdown is escaped and no mention notifies anyone', () => {
      const body = JSON.parse(deliveryBody('discord', payloadOf('ping', DATA.ping, name), PUBLIC_URL));
      expect(body.allowed_mentions).toEqual({ parse: [] });
      expect(body.content).toBe(
        'Ping from Scoreboard for \\<!channel\\> & \\<https\\://evil.example\\|click\\> \\*x\\* \\@everyone \\[a\\]\\(b\\)',
      );
      expect(body.embeds[0].title).toBe(body.content);
    });

    it('Teams: markdown is escaped in TextBlocks and FactSets', () => {
      const body = JSON.parse(deliveryBody('teams', payloadOf('ping', DATA.ping, name), PUBLIC_URL));
      const card = body.attachments[0].content;
      expect(card.body[0].text).toBe(
        'Ping from Scoreboard for <!channel\\> & <https://evil.example|click\\> \\*x\\* @everyone \\[a\\]\\(b\\)',
      );
      expect(card.fallbackText).toBe(`Ping from Scoreboard for ${name}`);
    });

    it('an escape is never cut in half, and a character never split', () => {
      expect(clip('a<b', 5, escapeSlack)).toBe('a…');
      expect(clip('a<b', 6, escapeSlack)).toBe('a&lt;b');
      expect(clip('a<b<', 7, escapeSlack)).toBe('a&lt;b…');
      expect(clip('a<b<', 6, escapeSlack)).toBe('a&lt;…');
      expect(clip('😀😀😀', 5)).toBe('😀😀…');
      expect(clip('short', 5)).toBe('short');
    });
  });

  it('words: a report names its score, issues, changes, branch, pull request and gate; a failed gate its reasons', () => {
    const created = chatMessage(payloadOf('report.created'), PUBLIC_URL);
    expect(created.summary).toBe(
      'A report scoring 87/100 was uploaded on feature/login for pull request #17 with 10 issues (3 new, 1 fixed against its baseline). The quality gate passed.',
    );
    expect(created.facts).toContainEqual({ label: 'Commit', value: 'a1b2c3d4e5f6' });
    expect(created.tone).toBe('good');
    const failed = chatMessage(payloadOf('report.gate_failed'), PUBLIC_URL);
    expect(failed.details).toEqual(failedGate.reasons);
    expect(failed.tone).toBe('bad');
    const issue = chatMessage(payloadOf('issue.updated'), PUBLIC_URL);
    expect(issue.summary).toBe('Grace set the issue "Unescaped output" to false positive.');
    expect(issue.facts).toContainEqual({ label: 'Location', value: 'resources/views/home.blade.php:12' });
    expect(issue.details).toEqual(['Comment: Checked by hand: the input is escaped upstream.']);
    const run = chatMessage(payloadOf('run.failed'), PUBLIC_URL);
    expect(run.summary).toBe('The analysis did not produce a report: Uncaught exception during analysis.');
    expect(run.details).toEqual(['Class "App\\Foo" not found']);
  });
});
