import { Type, type Static } from 'typebox';
import { NullableString, NullableTimestamp, Nullable } from '../wire/schemas.js';
import { WEBHOOK_EVENTS, type WebhookEvent } from './webhook-event-names.js';
import { WEBHOOK_FORMATS, type WebhookFormat } from './webhook-formats.js';

export const WEBHOOK_URL_MAX = 2048;
export const WEBHOOK_DESCRIPTION_MAX = 1000;

const EventName = Type.Unsafe<WebhookEvent>({ type: 'string', enum: [...WEBHOOK_EVENTS] });
const Events = Type.Array(EventName, {
  minItems: 1,
  maxItems: WEBHOOK_EVENTS.length * 4,
  description: 'A non-empty subset of the event names (repeats are kept once).',
  examples: [['report.gate_failed']],
});
const Url = Type.String({
  maxLength: WEBHOOK_URL_MAX,
  description:
    'An `http` or `https` URL with a host and no user info. Deliveries to private or loopback addresses are refused: ' +
    'a host that is `localhost` or such an IP address is a 422, and a delivery to a name that resolves to one fails at ' +
    'its first attempt (unless the server sets WEBHOOK_ALLOW_PRIVATE_NETWORKS).',
  examples: ['https://hooks.example.com/scoreboard'],
});

const FORMAT_DESCRIPTION =
  'The body each delivery is sent in: `standard` is the JSON event `{type, timestamp, data}`; `slack` is a Slack ' +
  'message `{text, blocks}` (Mattermost incoming webhooks take it too); `teams` is a Microsoft Teams workflow message ' +
  'carrying an Adaptive Card; `discord` is a Discord execute-webhook body `{content, embeds}`. Every format is signed ' +
  'with the same headers.';
const formatSchema = (description: string) =>
  Type.Unsafe<WebhookFormat>({ type: 'string', enum: [...WEBHOOK_FORMATS], description, examples: ['slack'] });
const Format = formatSchema(FORMAT_DESCRIPTION);

/** E6: a webhook; never its secret. */
export const Webhook = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    url: Type.String(),
    events: Type.Array(EventName),
    description: NullableString(),
    format: Format,
    active: Type.Boolean({ description: 'An inactive webhook is sent nothing: no events, no ping, no redelivery (409).' }),
    created_at: Type.String({ format: 'date-time' }),
    last_delivery: Type.Union([
      Type.Object({
        status: Type.Unsafe<'pending' | 'succeeded' | 'failed'>({ type: 'string', enum: ['pending', 'succeeded', 'failed'] }),
        response_status: Nullable<number>('integer'),
        at: Type.String({ format: 'date-time', description: 'When it was delivered, else when it was created.' }),
      }),
      Type.Null(),
    ]),
  },
  { $id: 'Webhook' },
);
export type Webhook = Static<typeof Webhook>;

/** E6: one event sent (or to send) to one webhook. */
export const WebhookDelivery = Type.Object(
  {
    id: Type.String({ format: 'uuid', description: 'The `webhook-id` header: the same on every attempt.' }),
    event: EventName,
    status: Type.Unsafe<'pending' | 'succeeded' | 'failed'>({ type: 'string', enum: ['pending', 'succeeded', 'failed'] }),
    attempts: Type.Integer({ minimum: 0 }),
    response_status: Nullable<number>('integer', { description: "The receiver's status at the last attempt; null without an answer." }),
    error: NullableString({ description: 'Why the last attempt failed.' }),
    next_attempt_at: NullableTimestamp('When the next attempt is due; null once succeeded or failed.'),
    created_at: Type.String({ format: 'date-time' }),
    delivered_at: NullableTimestamp(),
  },
  { $id: 'WebhookDelivery' },
);
export type WebhookDelivery = Static<typeof WebhookDelivery>;

export const CreateWebhookBody = Type.Object(
  {
    url: Url,
    events: Events,
    description: Type.Optional(NullableString({ maxLength: WEBHOOK_DESCRIPTION_MAX })),
    format: Type.Optional(formatSchema(`${FORMAT_DESCRIPTION} \`standard\` when absent.`)),
  },
  { $id: 'CreateWebhookBody' },
);
export type CreateWebhookBody = Static<typeof CreateWebhookBody>;

export const UpdateWebhookBody = Type.Object(
  {
    url: Type.Optional(Url),
    events: Type.Optional(Events),
    active: Type.Optional(Type.Boolean()),
    description: Type.Optional(NullableString({ maxLength: WEBHOOK_DESCRIPTION_MAX })),
    format: Type.Optional(Format),
  },
  { $id: 'UpdateWebhookBody' },
);
export type UpdateWebhookBody = Static<typeof UpdateWebhookBody>;

const Secret = Type.String({
  pattern: '^whsec_[A-Za-z0-9+/]{43}=$',
  description: 'Shown once: `whsec_` and the base64 of 32 random bytes. Verify each request with it (README, "Webhooks").',
});

export const CreateWebhookResponse = Type.Object({ webhook: Webhook, secret: Secret, message: Type.String() });
export const WebhookResponse = Type.Object({ data: Webhook });
export const WebhookListResponse = Type.Object({ data: Type.Array(Webhook) });
export const SecretResponse = Type.Object({ secret: Secret, message: Type.String() });
export const DeliveryResponse = Type.Object({ data: WebhookDelivery });

/** Path ids, documented as UUIDs like every project and report id (only documented: anything else is a 404). */
export const WebhookParams = Type.Object({
  project: Type.String({ format: 'uuid', description: 'The project id (UUID). Anything else is a 404.' }),
  webhook: Type.String({ format: 'uuid', description: 'The webhook id (UUID). Anything else is a 404.' }),
});
export const DeliveryParams = Type.Object({
  project: Type.String({ format: 'uuid', description: 'The project id (UUID). Anything else is a 404.' }),
  webhook: Type.String({ format: 'uuid', description: 'The webhook id (UUID). Anything else is a 404.' }),
  delivery: Type.String({ format: 'uuid', description: 'The delivery id (UUID). Anything else is a 404.' }),
});
