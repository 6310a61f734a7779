import type { ChatMessage } from './chat-message.js';
import { clip, oneLine } from '../../wire/plain-text.js';

/**
 * E11.5: a Microsoft Teams message as a workflow ("When a Teams webhook request is received")
 * posts it: `{type: "message", attachments: [{contentType: "application/vnd.microsoft.card.adaptive",
 * content}]}`, the content an Adaptive Card 1.5 (https://adaptivecards.io/explorer/) made of
 * TextBlocks, a FactSet and Action.OpenUrl buttons. Teams takes a message of about 28 KB at most:
 * the texts are cut well below it.
 */
export const TEAMS_LIMITS = { title: 200, summary: 2000, detail: 500, details: 20, factValue: 300, facts: 12, actions: 5 } as const;

/**
 * A TextBlock's markdown (bold, italics, lists, links), escaped with a backslash; `{{` is broken
 * up too, as a TextBlock would read `{{DATE(...)}}` as a function.
 */
export function escapeTeams(text: string): string {
  return text.replace(/[\\*_~`[\]()#>-]/g, '\\$&').replace(/\{\{/g, '{\u200b{');
}

const CARD_COLOURS: Record<ChatMessage['tone'], 'Good' | 'Attention' | 'Warning' | 'Default'> = {
  good: 'Good',
  bad: 'Attention',
  warning: 'Warning',
  neutral: 'Default',
};

export interface TeamsMessage {
  type: 'message';
  attachments: { contentType: 'application/vnd.microsoft.card.adaptive'; contentUrl: null; content: AdaptiveCard }[];
}

export interface AdaptiveCard {
  $schema: string;
  type: 'AdaptiveCard';
  version: '1.5';
  fallbackText: string;
  body: Record<string, unknown>[];
  actions?: { type: 'Action.OpenUrl'; title: string; url: string }[];
}

export function teamsMessage(message: ChatMessage): TeamsMessage {
  const title = clip(oneLine(message.title), TEAMS_LIMITS.title, escapeTeams);
  const body: Record<string, unknown>[] = [
    { type: 'TextBlock', text: title, weight: 'Bolder', size: 'Medium', color: CARD_COLOURS[message.tone], wrap: true, style: 'heading' },
  ];
  if (message.summary !== '') body.push({ type: 'TextBlock', text: clip(message.summary, TEAMS_LIMITS.summary, escapeTeams), wrap: true });
  const details = message.details.slice(0, TEAMS_LIMITS.details);
  if (details.length > 0)
    body.push({
      type: 'TextBlock',
      text: details.map((detail) => `- ${clip(oneLine(detail), TEAMS_LIMITS.detail, escapeTeams)}`).join('\n'),
      wrap: true,
    });
  const facts = message.facts.slice(0, TEAMS_LIMITS.facts);
  if (facts.length > 0)
    body.push({
      type: 'FactSet',
      facts: facts.map(({ label, value }) => ({
        title: escapeTeams(label),
        value: clip(oneLine(value), TEAMS_LIMITS.factValue, escapeTeams),
      })),
    });
  body.push({
    type: 'TextBlock',
    text: `Scoreboard · ${escapeTeams(message.event)}`,
    isSubtle: true,
    size: 'Small',
    wrap: true,
    spacing: 'Medium',
  });
  const card: AdaptiveCard = {
    $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
    type: 'AdaptiveCard',
    version: '1.5',
    fallbackText: clip(oneLine(message.title), TEAMS_LIMITS.title),
    body,
  };
  const actions = message.links
    .slice(0, TEAMS_LIMITS.actions)
    .map(({ label, url }) => ({ type: 'Action.OpenUrl' as const, title: label, url }));
  if (actions.length > 0) card.actions = actions;
  return {
    type: 'message',
    attachments: [{ contentType: 'application/vnd.microsoft.card.adaptive', contentUrl: null, content: card }],
  };
}
