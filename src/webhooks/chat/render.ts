import type { WebhookFormat } from '../webhook-formats.js';
import { chatMessage } from './chat-message.js';
import { discordMessage } from './discord.js';
import { slackMessage } from './slack.js';
import { teamsMessage } from './teams.js';

/**
 * E11.5: the body a delivery is sent with, from E6's body as stored: that body itself for
 * `standard`, else the chat service's message saying the same in words. `publicUrl` (PUBLIC_URL)
 * is where the dashboard links start; without it the messages carry none.
 */
export function deliveryBody(format: WebhookFormat, payload: string, publicUrl: string | undefined): string {
  if (format === 'standard') return payload;
  const message = chatMessage(payload, publicUrl);
  switch (format) {
    case 'slack':
      return JSON.stringify(slackMessage(message));
    case 'teams':
      return JSON.stringify(teamsMessage(message));
    case 'discord':
      return JSON.stringify(discordMessage(message));
  }
}
