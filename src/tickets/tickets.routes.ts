import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { credentialOf } from '../auth/write-credential.js';
import type { Config } from '../config.js';
import type { App } from '../http/app-types.js';
import { publicUrl } from '../http/public-url.js';
import { SUBSCRIBED } from '../http/route-kind.js';
import { IssueTicket } from '../issues/issue-state.schemas.js';
import { IssueParams } from '../issues/issues.schemas.js';
import type { IssuesService } from '../issues/issues.service.js';
import { projectOf, resolveProjectParam } from '../projects/project-param.js';
import { ProjectParams } from '../projects/projects.schemas.js';
import type { ProjectsService } from '../projects/projects.service.js';
import {
  BULK_TICKETS_MAX,
  BulkTicketItem,
  BulkTicketsBody,
  BulkTicketsResponse,
  PutTrackerBody,
  TicketResponse,
  TrackerDelivery,
  TrackerResponse,
} from './tickets.schemas.js';
import { PageQuery, Paginated } from '../wire/pagination.js';
import { NO_TICKETS_MESSAGE, TICKET_EXISTS_MESSAGE, type TicketsService } from './tickets.service.js';

/**
 * E9.3 and E9.4 under /api/v1/projects/{project}: the project's tracker (read: any member; link:
 * owner, admin or member, as D15's update) and turning its issues into tickets (update too); anyone
 * else gets a 404; an active subscription (D7).
 */
export async function ticketsRoutes(
  app: App,
  deps: {
    ticketsService: TicketsService;
    projectsService: Pick<ProjectsService, 'resolveProject'>;
    issuesService: Pick<IssuesService, 'assertHeld'>;
    config: Config;
  },
) {
  const { ticketsService: tickets, projectsService: projects, issuesService: issues, config } = deps;
  const tags = ['tickets'];
  const viewable = resolveProjectParam(projects, 'view');
  const updatable = resolveProjectParam(projects, 'update');
  /** D4 step 7: the project's 404, then the fingerprint's (`Issue not found.`). */
  const heldIssue = async (request: FastifyRequest) => {
    await updatable(request);
    await issues.assertHeld(projectOf(request).id, (request.params as { fingerprint: string }).fingerprint);
  };
  /** Dashboard links in a ticket's body start from PUBLIC_URL (D16's rule for absolute URLs). */
  const dashboardBase = (request: FastifyRequest) => publicUrl(config, request, '');
  const creates = (extra: { conflict?: Record<string, unknown>; badGateway?: Record<string, unknown> }) => ({
    ...SUBSCRIBED.write,
    conflictWhen: {
      message: NO_TICKETS_MESSAGE,
      why: `The project has no tickets (its primary_tracker is internal or unset, or no tracker is linked), or the issue has its ticket (\`${TICKET_EXISTS_MESSAGE}\`, with \`ticket\`).`,
      ...(extra.conflict && { extra: extra.conflict }),
    },
    badGatewayWhen: {
      example: 'GitHub did not create the ticket: Bad credentials',
      why: 'The provider refused the ticket (its own message follows), or did not answer in time; no credential is ever in the message.',
      ...(extra.badGateway && { extra: extra.badGateway }),
    },
  });

  app.get('/projects/:project/tracker', {
    config: { ...SUBSCRIBED.read },
    schema: {
      tags,
      summary: "The project's tracker: its connection, primary_tracker and target",
      params: ProjectParams,
      response: { 200: TrackerResponse },
    },
    preValidation: viewable,
    handler: async (request) => ({ data: await tickets.tracker(projectOf(request)) }),
  });

  app.get('/projects/:project/tracker/deliveries', {
    config: { ...SUBSCRIBED.read },
    schema: {
      tags,
      summary: "The calls made to the project's tracker when issues were fixed (a comment, then closing), newest first",
      params: ProjectParams,
      querystring: PageQuery,
      response: { 200: Paginated(TrackerDelivery) },
    },
    preValidation: viewable,
    handler: async (request) => {
      const project = projectOf(request);
      const path = publicUrl(config, request, `/api/v1/projects/${project.id}/tracker/deliveries`);
      return tickets.deliveries(project.id, request.query.page ?? 1, path);
    },
  });

  app.put('/projects/:project/tracker', {
    config: SUBSCRIBED.write,
    schema: {
      tags,
      summary: "Link a connection of the project's team as its tracker (its provider becomes primary_tracker), or unlink it",
      params: ProjectParams,
      body: PutTrackerBody,
      response: { 200: TrackerResponse },
    },
    preValidation: updatable,
    handler: async (request) => ({
      data: await tickets.linkTracker(credentialOf(request), projectOf(request), request.body.connection_id),
    }),
  });

  app.post('/projects/:project/issues/:fingerprint/ticket', {
    config: {
      ...creates({ conflict: { ticket: Type.Optional(IssueTicket) } }),
      notFoundWhen:
        'The project does not exist or the caller may not change its issues (`The requested resource was not found.`), ' +
        'or the fingerprint is not 32 lowercase hexadecimal characters or no report of the project holds it (`Issue not found.`).',
    },
    schema: {
      tags,
      summary: "Turn an issue into a ticket at the project's tracker",
      description: "A 502 carries the provider's message when it refused, or did not answer in time.",
      params: IssueParams,
      response: { 201: TicketResponse },
    },
    preValidation: heldIssue,
    handler: async (request, reply) => {
      const [item] = await tickets.create(
        credentialOf(request),
        projectOf(request),
        [request.params.fingerprint],
        'path',
        dashboardBase(request),
      );
      return reply.status(201).send({ data: item!.ticket });
    },
  });

  app.post('/projects/:project/issues/bulk-tickets', {
    config: creates({
      badGateway: { data: Type.Optional(Type.Array(BulkTicketItem, { description: 'The tickets created before the failure, kept.' })) },
    }),
    schema: {
      tags,
      summary: `Turn up to ${BULK_TICKETS_MAX} issues into tickets, one after another`,
      description:
        'Every fingerprint is checked first (one no report holds: 422 naming it, and nothing is sent). An issue with its ticket is answered as it is. ' +
        "The tickets are then created in the request's order; a provider failure stops there with a 502 whose `data` lists the tickets created before it " +
        '(they exist at the provider and are kept): sending the same request again creates the rest.',
      params: ProjectParams,
      body: BulkTicketsBody,
      response: { 200: BulkTicketsResponse },
    },
    preValidation: updatable,
    handler: async (request) => {
      const data = await tickets.create(
        credentialOf(request),
        projectOf(request),
        request.body.fingerprints,
        'body',
        dashboardBase(request),
      );
      const created = data.filter((item) => item.created).length;
      const had = data.length - created;
      const message =
        `${created} ${created === 1 ? 'ticket' : 'tickets'} created` +
        (had > 0 ? `; ${had} ${had === 1 ? 'issue had its ticket' : 'issues had their tickets'} already.` : '.');
      return { data, message };
    },
  });
}
