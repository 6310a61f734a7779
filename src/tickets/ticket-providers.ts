import type { ProviderHttp, ProviderResult } from '../connections/provider-http.js';
import { isJiraCloud } from '../connections/providers.js';
import type { OpenedConnection } from '../connections/connections.repository.js';
import type { TicketProvider } from '../issues/issue-state.schemas.js';
import { type Block, type TicketFacts, ticketDocument, ticketTitle, toAdf, toMarkdown, toWiki } from './ticket-text.js';

/**
 * E9.4: creating a ticket at each ticket provider, as its documentation describes the request and
 * the answer. Jira: `POST /rest/api/3/issue` (Cloud: description in Atlassian Document Format) or
 * `/rest/api/2/issue` (Data Center: wiki markup), issue type `Bug`. Linear: the team found by its
 * key, then `issueCreate`. GitHub: `POST /repos/{owner}/{repo}/issues`. GitLab: `POST
 * /projects/{id or url-encoded path}/issues`. What comes back is the ticket as people name it, its
 * page, and `remote`: what later calls need to comment on and close it (ids, numbers, iids).
 */

export interface CreatedTicket {
  key: string;
  url: string;
  remote: Record<string, unknown>;
}

export type TicketOutcome = { ok: true; ticket: CreatedTicket } | { ok: false; message: string };

const LABELS: Record<TicketProvider, string> = { jira: 'Jira', linear: 'Linear', github: 'GitHub', gitlab: 'GitLab' };

export async function createTicketAt(
  http: ProviderHttp,
  connection: OpenedConnection,
  targetKey: string,
  facts: TicketFacts,
): Promise<TicketOutcome> {
  const provider = connection.provider as TicketProvider;
  const title = ticketTitle(facts);
  const document = ticketDocument(facts);
  const label = LABELS[provider];
  const failed = (message: string): TicketOutcome => ({ ok: false, message: `${label} did not create the ticket: ${message}` });
  const answerOf = (result: ProviderResult) => (result.ok ? result.answer.json : null);
  const unreadable = failed('its answer did not name the ticket created.');

  switch (provider) {
    case 'jira': {
      const cloud = isJiraCloud(connection.credentials);
      const result = await http.request({
        connection,
        method: 'POST',
        path: cloud ? '/rest/api/3/issue' : '/rest/api/2/issue',
        body: {
          fields: {
            project: { key: targetKey },
            issuetype: { name: 'Bug' },
            summary: title,
            description: cloud ? toAdf(document) : toWiki(document),
          },
        },
      });
      if (!result.ok) return failed(result.failure.message);
      const created = answerOf(result) as { id?: unknown; key?: unknown } | null;
      if (typeof created?.key !== 'string' || created.key === '') return unreadable;
      const site = connection.base_url.replace(/\/+$/, '');
      return {
        ok: true,
        ticket: {
          key: created.key,
          url: `${site}/browse/${encodeURIComponent(created.key)}`,
          remote: { id: String(created.id ?? ''), key: created.key },
        },
      };
    }
    case 'linear': {
      const teams = await http.request({
        connection,
        method: 'POST',
        path: '/graphql',
        body: {
          query: 'query ScoreboardTeam($key: String!) { teams(filter: { key: { eq: $key } }) { nodes { id key name } } }',
          variables: { key: targetKey },
        },
      });
      if (!teams.ok) return failed(teams.failure.message);
      const team = (answerOf(teams) as { data?: { teams?: { nodes?: { id?: unknown }[] } } } | null)?.data?.teams?.nodes?.[0];
      if (typeof team?.id !== 'string') return failed(`no team has the key ${targetKey}.`);
      const result = await http.request({
        connection,
        method: 'POST',
        path: '/graphql',
        body: {
          query:
            'mutation ScoreboardIssueCreate($input: IssueCreateInput!) { issueCreate(input: $input) { success issue { id identifier url } } }',
          variables: { input: { teamId: team.id, title, description: toMarkdown(document) } },
        },
      });
      if (!result.ok) return failed(result.failure.message);
      const payload = (answerOf(result) as { data?: { issueCreate?: { success?: unknown; issue?: Record<string, unknown> } } } | null)?.data
        ?.issueCreate;
      const issue = payload?.issue;
      if (payload?.success !== true || typeof issue?.identifier !== 'string' || typeof issue.url !== 'string') return unreadable;
      return { ok: true, ticket: { key: issue.identifier, url: issue.url, remote: { id: issue.id, identifier: issue.identifier } } };
    }
    case 'github': {
      const [owner, repo, ...rest] = targetKey.split('/');
      if (!owner || !repo || rest.length > 0) return failed(`the target ${targetKey} is not a repository as owner/repo.`);
      const result = await http.request({
        connection,
        method: 'POST',
        path: `/repos/${encodeURIComponent(owner)}/${encodeURIComponent(repo)}/issues`,
        body: { title, body: toMarkdown(document) },
      });
      if (!result.ok) return failed(result.failure.message);
      const created = answerOf(result) as { id?: unknown; number?: unknown; html_url?: unknown } | null;
      if (typeof created?.number !== 'number' || typeof created.html_url !== 'string') return unreadable;
      return {
        ok: true,
        ticket: {
          key: `${owner}/${repo}#${created.number}`,
          url: created.html_url,
          remote: { owner, repo, number: created.number, id: created.id },
        },
      };
    }
    case 'gitlab': {
      const result = await http.request({
        connection,
        method: 'POST',
        path: `/projects/${encodeURIComponent(targetKey)}/issues`,
        body: { title, description: toMarkdown(document) },
      });
      if (!result.ok) return failed(result.failure.message);
      const created = answerOf(result) as { id?: unknown; iid?: unknown; project_id?: unknown; web_url?: unknown } | null;
      if (typeof created?.iid !== 'number' || typeof created.web_url !== 'string') return unreadable;
      return {
        ok: true,
        ticket: {
          key: `${targetKey}#${created.iid}`,
          url: created.web_url,
          remote: { project_id: created.project_id, iid: created.iid, id: created.id },
        },
      };
    }
  }
}

/** A stored ticket as E9.5's calls address it: `remote` as createTicketAt returned it. */
export interface TicketAddress {
  provider: TicketProvider;
  key: string;
  remote: Record<string, unknown>;
}

/**
 * E9.5: a comment on a ticket. GitHub `POST /repos/{owner}/{repo}/issues/{number}/comments`;
 * GitLab `POST /projects/{id}/issues/{iid}/notes`; Jira `POST /rest/api/3/issue/{key}/comment`
 * (Cloud, the body in Atlassian Document Format) or `/rest/api/2/issue/{key}/comment` (Data
 * Center, wiki markup); Linear's `commentCreate` on the issue's id.
 */
export async function commentOnTicket(
  http: ProviderHttp,
  connection: OpenedConnection,
  ticket: TicketAddress,
  document: Block[],
): Promise<ProviderResult> {
  const { remote } = ticket;
  switch (ticket.provider) {
    case 'github':
      return http.request({
        connection,
        method: 'POST',
        path: `${githubIssuePath(remote)}/comments`,
        body: { body: toMarkdown(document) },
      });
    case 'gitlab':
      return http.request({ connection, method: 'POST', path: `${gitlabIssuePath(remote)}/notes`, body: { body: toMarkdown(document) } });
    case 'jira': {
      const cloud = isJiraCloud(connection.credentials);
      return http.request({
        connection,
        method: 'POST',
        path: `/rest/api/${cloud ? 3 : 2}/issue/${encodeURIComponent(ticket.key)}/comment`,
        body: { body: cloud ? toAdf(document) : toWiki(document) },
      });
    }
    case 'linear': {
      const result = await http.request({
        connection,
        method: 'POST',
        path: '/graphql',
        body: {
          query: 'mutation ScoreboardCommentCreate($input: CommentCreateInput!) { commentCreate(input: $input) { success } }',
          variables: { input: { issueId: String(remote.id), body: toMarkdown(document) } },
        },
      });
      if (!result.ok) return result;
      const success = (result.answer.json as { data?: { commentCreate?: { success?: unknown } } } | null)?.data?.commentCreate?.success;
      return success === true
        ? result
        : { ok: false, failure: { kind: 'http', status: result.answer.status, message: 'Linear did not create the comment.' } };
    }
  }
}

/**
 * E9.5: closing a GitHub issue (`PATCH /repos/{owner}/{repo}/issues/{number}` with `state: closed`,
 * `state_reason: completed`) or a GitLab one (`PUT /projects/{id}/issues/{iid}` with `state_event:
 * close`). Jira and Linear tickets are not closed: their workflows are the team's own.
 */
export async function closeTicket(http: ProviderHttp, connection: OpenedConnection, ticket: TicketAddress): Promise<ProviderResult> {
  if (ticket.provider === 'github') {
    return http.request({
      connection,
      method: 'PATCH',
      path: githubIssuePath(ticket.remote),
      body: { state: 'closed', state_reason: 'completed' },
    });
  }
  if (ticket.provider === 'gitlab') {
    return http.request({ connection, method: 'PUT', path: gitlabIssuePath(ticket.remote), body: { state_event: 'close' } });
  }
  throw new Error(`${ticket.provider} tickets are not closed by Scoreboard`);
}

/** Which tickets E9.5 closes as well as comments on. */
export const CLOSED_WHEN_FIXED: readonly TicketProvider[] = ['github', 'gitlab'];

function githubIssuePath(remote: Record<string, unknown>): string {
  return `/repos/${encodeURIComponent(String(remote.owner))}/${encodeURIComponent(String(remote.repo))}/issues/${Number(remote.number)}`;
}

function gitlabIssuePath(remote: Record<string, unknown>): string {
  return `/projects/${encodeURIComponent(String(remote.project_id))}/issues/${Number(remote.iid)}`;
}
