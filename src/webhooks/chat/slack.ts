import type { ChatMessage } from './chat-message.js';
import { clip, oneLine } from '../../wire/plain-text.js';

/**
 * E11.5: a Slack message, `{text, blocks}`, as an incoming webhook takes it (Block Kit:
 * https://api.slack.com/reference/block-kit/blocks). Mattermost's incoming webhooks take the same
 * body and show its `text`, so `text` says the whole message on its own, in the markup both read
 * (`*bold*`, `<url|label>` links). The limits are Slack's: at most 50 blocks; a header's text 150
 * characters; a section's text 3000, its fields 10 of 2000 each; a context's elements 10; a
 * button's text 75, its URL 3000, an actions block's elements 25.
 */
export const SLACK_LIMITS = {
  blocks: 50,
  headerText: 150,
  sectionText: 3000,
  fields: 10,
  fieldText: 2000,
  contextElements: 10,
  buttonText: 75,
  buttonUrl: 3000,
  actions: 25,
} as const;

/** Slack's mrkdwn escapes exactly these three (https://api.slack.com/reference/surfaces/formatting#escaping). */
export function escapeSlack(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

type TextObject = { type: 'plain_text' | 'mrkdwn'; text: string; emoji?: boolean };
export type SlackBlock =
  | { type: 'header'; text: TextObject }
  | { type: 'section'; text?: TextObject; fields?: TextObject[] }
  | { type: 'context'; elements: TextObject[] }
  | { type: 'actions'; elements: { type: 'button'; text: TextObject; url: string; action_id: string }[] };

export interface SlackMessage {
  text: string;
  blocks: SlackBlock[];
}

/** The message's `text`: each part at most this long, and so many of the details (Slack cuts a text at 40,000 characters). */
const TEXT_PART = 1000;
const TEXT_DETAILS = 20;

const mrkdwn = (text: string): TextObject => ({ type: 'mrkdwn', text });
/** A link in mrkdwn: the URL escaped too, and `|` left out of it (it would end the URL). */
const slackLink = (url: string, label: string) => `<${escapeSlack(url).replace(/\|/g, '%7C')}|${escapeSlack(label)}>`;

export function slackMessage(message: ChatMessage): SlackMessage {
  const title = oneLine(message.title);
  const details = message.details.map((detail) => `• ${detail}`).join('\n');
  const blocks: SlackBlock[] = [{ type: 'header', text: { type: 'plain_text', text: clip(title, SLACK_LIMITS.headerText), emoji: false } }];
  const summary = [message.summary, details].filter((part) => part !== '').join('\n');
  if (summary !== '') blocks.push({ type: 'section', text: mrkdwn(clip(summary, SLACK_LIMITS.sectionText, escapeSlack)) });
  const facts = message.facts.slice(0, SLACK_LIMITS.fields);
  if (facts.length > 0)
    blocks.push({
      type: 'section',
      fields: facts.map(({ label, value }) => {
        const head = `*${escapeSlack(label)}*\n`;
        return mrkdwn(head + clip(oneLine(value), SLACK_LIMITS.fieldText - head.length, escapeSlack));
      }),
    });
  const links = message.links.slice(0, SLACK_LIMITS.actions).filter(({ url }) => url.length <= SLACK_LIMITS.buttonUrl);
  if (links.length > 0)
    blocks.push({
      type: 'actions',
      elements: links.map(({ label, url }, index) => ({
        type: 'button',
        text: { type: 'plain_text', text: clip(label, SLACK_LIMITS.buttonText), emoji: false },
        url,
        action_id: `scoreboard-link-${index}`,
      })),
    });
  if (message.at !== '')
    blocks.push({ type: 'context', elements: [mrkdwn(`Scoreboard · ${escapeSlack(message.event)} · ${escapeSlack(message.at)}`)] });

  // The whole message as text: Slack's notification and screen-reader text, and what Mattermost shows.
  // Each part is cut on its own, so that no escape or link is cut in half.
  const lines = [
    `*${clip(title, SLACK_LIMITS.headerText, escapeSlack)}*`,
    ...(message.summary === '' ? [] : [clip(message.summary, TEXT_PART, escapeSlack)]),
    ...message.details.slice(0, TEXT_DETAILS).map((detail) => `• ${clip(oneLine(detail), TEXT_PART, escapeSlack)}`),
    ...facts.map(({ label, value }) => `${escapeSlack(label)}: ${clip(oneLine(value), TEXT_PART, escapeSlack)}`),
    ...links.map(({ label, url }) => slackLink(url, label)),
  ];
  return { text: lines.join('\n'), blocks: blocks.slice(0, SLACK_LIMITS.blocks) };
}
