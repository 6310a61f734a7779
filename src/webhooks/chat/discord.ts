import type { ChatMessage } from './chat-message.js';
import { clip, oneLine } from '../../wire/plain-text.js';

/**
 * E11.5: a Discord execute-webhook body, `{content, embeds, allowed_mentions}`
 * (https://discord.com/developers/docs/resources/webhook#execute-webhook), with one embed
 * (https://discord.com/developers/docs/resources/message#embed-object). The limits are Discord's:
 * `content` 2000 characters, at most 10 embeds; an embed's title 256, description 4096, at most 25
 * fields of name 256 and value 1024, footer 2048, and 6000 characters in all its texts.
 * `allowed_mentions: {parse: []}` keeps any `@everyone`, `@here` or user mention in a project's
 * text from notifying anyone.
 */
export const DISCORD_LIMITS = {
  content: 2000,
  embeds: 10,
  title: 256,
  description: 4096,
  fields: 25,
  fieldName: 256,
  fieldValue: 1024,
  footer: 2048,
  embedTotal: 6000,
} as const;

/** What this renderer spends at most, within Discord's limits, so that the embed's total stays under 6000. */
const BUDGET = { description: 2000, fieldValue: 300, fields: 12 } as const;

const COLOURS: Record<ChatMessage['tone'], number> = { good: 0x2e7d32, bad: 0xc62828, warning: 0xef6c00, neutral: 0x546e7a };

/** Discord's markdown, escaped with a backslash (bold, italics, strike, code, spoilers, quotes, headings, lists, links, mentions, emoji). */
export function escapeDiscord(text: string): string {
  return text.replace(/[\\*_~`|>#\-[\]()<:@]/g, '\\$&');
}

export interface DiscordEmbed {
  title: string;
  description?: string;
  url?: string;
  color: number;
  timestamp?: string;
  fields?: { name: string; value: string; inline?: boolean }[];
  footer: { text: string };
}

export interface DiscordMessage {
  content: string;
  embeds: DiscordEmbed[];
  allowed_mentions: { parse: never[] };
}

export function discordMessage(message: ChatMessage): DiscordMessage {
  const title = clip(oneLine(message.title), DISCORD_LIMITS.title, escapeDiscord);
  const description = [message.summary, ...message.details.map((detail) => `• ${oneLine(detail)}`)].filter((part) => part !== '');
  const links = message.links.map(({ label, url }) => `[${escapeDiscord(label)}](${url.replace(/\(/g, '%28').replace(/\)/g, '%29')})`);
  const linkLine = links.join(' · ');
  const embed: DiscordEmbed = {
    title,
    color: COLOURS[message.tone],
    footer: { text: `Scoreboard · ${message.event}` },
  };
  if (message.links[0] !== undefined) embed.url = message.links[0].url;
  if (description.length > 0 || linkLine !== '') {
    const room = BUDGET.description - (linkLine === '' ? 0 : linkLine.length + 2);
    embed.description = [clip(description.join('\n'), room, escapeDiscord), linkLine].filter((part) => part !== '').join('\n\n');
  }
  if (/^\d{4}-\d\d-\d\dT/.test(message.at)) embed.timestamp = message.at;
  const fields = message.facts.slice(0, BUDGET.fields).map(({ label, value }) => ({
    name: clip(label, DISCORD_LIMITS.fieldName, escapeDiscord),
    value: clip(oneLine(value), BUDGET.fieldValue, escapeDiscord),
    inline: true,
  }));
  if (fields.length > 0) embed.fields = fields;
  return {
    content: clip(oneLine(message.title), DISCORD_LIMITS.content, escapeDiscord),
    embeds: [embed],
    allowed_mentions: { parse: [] },
  };
}
