import type { FastifyReply, FastifyRequest } from 'fastify';
import { credentialOf } from '../auth/write-credential.js';
import type { Config } from '../config.js';
import type { App } from '../http/app-types.js';
import { SUBSCRIBED } from '../http/route-kind.js';
import { PageQuery, Paginated } from '../wire/pagination.js';
import { publicUrl } from '../http/public-url.js';
import { MessageResponse } from '../wire/schemas.js';
import { projectOf, resolveProjectParam } from '../projects/project-param.js';
import { ProjectParams } from '../projects/projects.schemas.js';
import type { ProjectsService } from '../projects/projects.service.js';
import {
  CreateWebhookBody,
  CreateWebhookResponse,
  DeliveryParams,
  DeliveryResponse,
  SecretResponse,
  UpdateWebhookBody,
  WebhookDelivery,
  WebhookListResponse,
  WebhookParams,
  WebhookResponse,
} from './webhooks.schemas.js';
import { webhookInactive, type WebhooksService } from './webhooks.service.js';
import { createWebhookSendRateLimiter } from './webhook-send-rate-limit.js';

const CREATED = 'Webhook created successfully. Save the secret — it will only be shown once.';
const DELETED = 'Webhook deleted successfully.';
const ROTATED = 'Secret rotated successfully. Save the new secret — it will only be shown once; the old one also signs for 24 hours.';

/**
 * E6 under /api/v1/projects/{project}/webhooks.
 * Project routes: an active subscription (D7); owner or admin of the project's team, else 404 (D15's delete roles).
 */
export async function webhooksRoutes(
  app: App,
  deps: { webhooksService: WebhooksService; projectsService: Pick<ProjectsService, 'resolveProject'>; config: Config },
) {
  const { webhooksService: webhooks, projectsService: projects, config } = deps;
  const tags = ['webhooks'];
  const manage = resolveProjectParam(projects, 'delete');
  const sendLimit = createWebhookSendRateLimiter(app);
  /**
   * D31, for the routes that send on request: after the project's 404, the webhook's (and the
   * delivery's) 404 and the inactive webhook's 409, then the webhook's own budget (429). A request
   * refused earlier sends nothing, so it spends nothing.
   */
  const sendable = async (request: FastifyRequest, reply: FastifyReply) => {
    const params = request.params as { webhook: string; delivery?: string };
    await webhooks.assertSendable(projectOf(request).id, params.webhook, params.delivery);
    await sendLimit(request, reply);
  };
  const sends = {
    ...SUBSCRIBED.write,
    conflictWhen: { message: webhookInactive().message, why: 'The webhook is inactive: it is sent nothing.' },
    tooManyWhen: "over the webhook's 10 pings and redeliveries a minute",
  };

  app.post('/projects/:project/webhooks', {
    config: SUBSCRIBED.write,
    schema: {
      tags,
      summary: 'Create a webhook; its signing secret is shown once',
      params: ProjectParams,
      body: CreateWebhookBody,
      response: { 201: CreateWebhookResponse },
    },
    // D4: the limit is a 403 of state (step 8), answered after the 404 (step 7) and before the body is validated (step 9).
    preValidation: [manage, async (request) => webhooks.assertBelowWebhookLimit(projectOf(request).id)],
    handler: async (request, reply) => {
      const { webhook, secret } = await webhooks.create(credentialOf(request), projectOf(request).id, request.body);
      return reply.code(201).send({ webhook, secret, message: CREATED });
    },
  });

  app.get('/projects/:project/webhooks', {
    config: SUBSCRIBED.read,
    schema: { tags, summary: "List the project's webhooks, newest first", params: ProjectParams, response: { 200: WebhookListResponse } },
    preValidation: manage,
    handler: async (request) => ({ data: await webhooks.list(projectOf(request).id) }),
  });

  app.get('/projects/:project/webhooks/:webhook', {
    config: SUBSCRIBED.read,
    schema: { tags, summary: 'Show a webhook', params: WebhookParams, response: { 200: WebhookResponse } },
    preValidation: manage,
    handler: async (request) => ({ data: await webhooks.show(projectOf(request).id, request.params.webhook) }),
  });

  app.put('/projects/:project/webhooks/:webhook', {
    config: SUBSCRIBED.write,
    schema: {
      tags,
      summary: 'Change a webhook: its URL, events, description, or whether it is active',
      params: WebhookParams,
      body: UpdateWebhookBody,
      response: { 200: WebhookResponse },
    },
    preValidation: manage,
    handler: async (request) => ({
      data: await webhooks.update(credentialOf(request), projectOf(request).id, request.params.webhook, request.body),
    }),
  });

  app.delete('/projects/:project/webhooks/:webhook', {
    config: SUBSCRIBED.write,
    schema: {
      tags,
      summary: 'Delete a webhook; its pending deliveries are dropped',
      params: WebhookParams,
      response: { 200: MessageResponse },
    },
    preValidation: manage,
    handler: async (request) => {
      await webhooks.remove(credentialOf(request), projectOf(request).id, request.params.webhook);
      return { message: DELETED };
    },
  });

  app.post('/projects/:project/webhooks/:webhook/rotate-secret', {
    config: SUBSCRIBED.write,
    schema: { tags, summary: 'Issue a new signing secret', params: WebhookParams, response: { 200: SecretResponse } },
    preValidation: manage,
    handler: async (request) => ({
      secret: await webhooks.rotateSecret(credentialOf(request), projectOf(request).id, request.params.webhook),
      message: ROTATED,
    }),
  });

  app.post('/projects/:project/webhooks/:webhook/ping', {
    config: sends,
    schema: { tags, summary: 'Send a `ping` event to the webhook', params: WebhookParams, response: { 202: DeliveryResponse } },
    preValidation: [manage, sendable],
    handler: async (request, reply) =>
      reply.code(202).send({ data: await webhooks.ping(credentialOf(request), projectOf(request).id, request.params.webhook) }),
  });

  app.get('/projects/:project/webhooks/:webhook/deliveries', {
    config: SUBSCRIBED.read,
    schema: {
      tags,
      summary: "List the webhook's deliveries, newest first",
      params: WebhookParams,
      querystring: PageQuery,
      response: { 200: Paginated(WebhookDelivery) },
    },
    preValidation: manage,
    handler: async (request) => {
      const project = projectOf(request);
      const path = publicUrl(config, request, `/api/v1/projects/${project.id}/webhooks/${request.params.webhook}/deliveries`);
      return webhooks.listDeliveries(project.id, request.params.webhook, request.query.page ?? 1, path);
    },
  });

  app.post('/projects/:project/webhooks/:webhook/deliveries/:delivery/redeliver', {
    config: sends,
    schema: {
      tags,
      summary: 'Send a delivery again, as a new delivery of the same event and body',
      params: DeliveryParams,
      response: { 202: DeliveryResponse },
    },
    preValidation: [manage, sendable],
    handler: async (request, reply) =>
      reply.code(202).send({
        data: await webhooks.redeliver(credentialOf(request), projectOf(request).id, request.params.webhook, request.params.delivery),
      }),
  });
}
