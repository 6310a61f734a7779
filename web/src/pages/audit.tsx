import { ScrollRegion } from '../components/scroll-region.js';
import { useLocation } from 'preact-iso';
import { DASHBOARD_PAGES, pageUrl } from '../../../src/dashboard/dashboard-pages.js';
import { api, call } from '../api/client.js';
import { ProblemMessage } from '../components/problem-message.js';
import {
  AUDIT_ACTIONS,
  type AuditEvent,
  type AuditPart,
  type AuditQuery,
  auditUrl,
  formatActor,
  formatDetails,
  formatTarget,
  projectIdsOf,
  projectNamesInEvents,
  readAuditQuery,
  relativeTime,
  unnamedProject,
} from '../lib/audit-format.js';
import { formatDate } from '../lib/format.js';
import { managesTeam } from '../lib/team-roles.js';
import { useApi, usePageTitle } from '../lib/use-api.js';

/**
 * E7 audit log (E5): the person's own actions, or a team's events for a team they own or administer;
 * filtered by action, paginated (D16), all of it in the URL so reload and back keep it.
 */
export function AuditPage() {
  usePageTitle('Audit log');
  const location = useLocation();
  const query = readAuditQuery(location.query);
  const { scope, action, page } = query;
  const teams = useApi(async () => (await call(api.GET('/api/v1/teams'))).data.filter((team) => managesTeam(team.role)), []);
  const teamId = scope.kind === 'team' ? scope.teamId : null;
  const events = useApi(async () => {
    const filter = { page, ...(action === null ? {} : { action }) };
    if (teamId === null) return call(api.GET('/api/v1/user/audit-events', { params: { query: filter } }));
    return call(api.GET('/api/v1/teams/{team}/audit-events', { params: { path: { team: teamId }, query: filter } }));
  }, [teamId, action, page]);

  const go = (next: AuditQuery) => location.route(auditUrl(DASHBOARD_PAGES.audit, next));
  const apply = (event: SubmitEvent) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const team = String(form.get('scope') ?? '');
    const picked = String(form.get('action') ?? '');
    go({
      scope: team === '' ? { kind: 'mine' } : { kind: 'team', teamId: Number(team) },
      action: AUDIT_ACTIONS.find((name) => name === picked) ?? null,
      page: 1,
    });
  };

  const scopeName = teamId === null ? 'your actions' : (teams.data?.find((team) => team.id === teamId)?.name ?? `team ${teamId}`);
  const meta = events.data?.meta;
  return (
    <section aria-labelledby="audit-title">
      <h1 id="audit-title">Audit log</h1>
      <p class="hint">Every change made through the API, the dashboard or the operator’s command, newest first.</p>
      {/* The key re-creates the form when the URL changes (back, a link) or the teams arrive, so its choices follow the URL. */}
      <form
        key={`${location.url} ${teams.data === undefined ? 'without' : 'with'} teams`}
        class="audit-filters"
        onSubmit={apply}
        aria-label="Which events"
      >
        <div class="field">
          <label for="audit-scope">Events of</label>
          {/* `selected` on the options: a select has no default value property for Preact to set. */}
          <select id="audit-scope" name="scope">
            <option value="" selected={teamId === null}>
              My actions
            </option>
            {teams.data?.map((team) => (
              <option key={team.id} value={String(team.id)} selected={team.id === teamId}>
                Team {team.name}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="audit-action">Action</label>
          <select id="audit-action" name="action">
            <option value="" selected={action === null}>
              All actions
            </option>
            {AUDIT_ACTIONS.map((name) => (
              <option key={name} value={name} selected={name === action}>
                {name}
              </option>
            ))}
          </select>
        </div>
        <button type="submit">Show events</button>
      </form>
      <ProblemMessage problem={teams.problem ?? events.problem} />
      {events.loading && events.data === undefined && <p aria-live="polite">Loading events…</p>}
      {events.data?.data.length === 0 && <p class="empty">{emptyMessage(scopeName, action, page)}</p>}
      {events.data && events.data.data.length > 0 && (
        <AuditTable events={events.data.data} caption={`Audit events of ${scopeName}${action === null ? '' : `: ${action}`}`} />
      )}
      {meta && meta.last_page > 1 && (
        <nav class="pagination" aria-label="Pages of audit events">
          <button type="button" disabled={page <= 1} onClick={() => go({ ...query, page: page - 1 })}>
            Previous
          </button>
          <span>
            Page {meta.current_page} of {meta.last_page} ({meta.total} events)
          </span>
          <button type="button" disabled={page >= meta.last_page} onClick={() => go({ ...query, page: page + 1 })}>
            Next
          </button>
        </nav>
      )}
    </section>
  );
}

/** What an empty page says, and what to do next. */
function emptyMessage(scopeName: string, action: string | null, page: number): string {
  if (page > 1) return 'This page is past the last one: go back to the first page.';
  if (action !== null) return `No ${action} events for ${scopeName}. Choose “All actions” to see every event.`;
  return `No events yet for ${scopeName}. Changes appear here as they are made.`;
}

/** A project an event names: its name (a lookup's, else the events'), linked while the person can still open it. */
interface ProjectName {
  name: string;
  linked: boolean;
}

/**
 * The names of the projects the events name, looked up one by one (the audit API gives ids): a
 * project deleted since, or in a team the person left, answers 404 and keeps the name the events
 * gave it, unlinked. A failed lookup leaves a project unnamed, never the page broken.
 */
function useProjectNames(events: AuditEvent[]): Map<string, ProjectName> {
  const ids = projectIdsOf(events);
  const found = useApi(
    async () =>
      new Map(
        await Promise.all(
          ids.map(async (id) => {
            const answer = await api.GET('/api/v1/projects/{project}', { params: { path: { project: id } } }).catch(() => null);
            return [id, answer?.data?.data.name ?? null] as const;
          }),
        ),
      ),
    [ids.join(' ')],
  );
  const fromEvents = projectNamesInEvents(events);
  const names = new Map<string, ProjectName>();
  for (const id of ids) {
    const current = found.data?.get(id);
    if (current) names.set(id, { name: current, linked: true });
    else if (fromEvents.has(id)) names.set(id, { name: fromEvents.get(id)!, linked: false });
  }
  return names;
}

/** The events as a table that scrolls sideways inside its own region on a narrow screen. */
function AuditTable({ events, caption }: { events: AuditEvent[]; caption: string }) {
  const names = useProjectNames(events);
  const now = new Date();
  return (
    <ScrollRegion labelledBy="audit-caption">
      <table class="audit-table stacked-table">
        <caption id="audit-caption">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Action</th>
            <th scope="col">Actor</th>
            <th scope="col">Target</th>
            <th scope="col">Details</th>
            <th scope="col">IP</th>
          </tr>
        </thead>
        <tbody>
          {events.map((event) => (
            <tr key={event.id}>
              <td class="audit-when" data-label="When">
                {event.created_at === null ? (
                  '—'
                ) : (
                  <time dateTime={event.created_at} title={formatDate(event.created_at)}>
                    {relativeTime(event.created_at, now)}
                  </time>
                )}
              </td>
              <td data-label="Action">
                <code>{event.action}</code>
              </td>
              <td data-label="Actor">{formatActor(event.actor)}</td>
              <td data-label="Target">
                <Part part={formatTarget(event.target)} names={names} />
              </td>
              <td class="audit-details-cell" data-label="Details">
                <AuditDetails details={event.details} names={names} />
              </td>
              <td data-label="IP">{event.ip ?? '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollRegion>
  );
}

function AuditDetails({ details, names }: { details: AuditEvent['details']; names: Map<string, ProjectName> }) {
  const lines = formatDetails(details);
  if (lines.length === 0) return <span class="muted">—</span>;
  return (
    <ul class="audit-details">
      {lines.map((line, index) => (
        <li key={index}>
          {line.field}: <Part part={line.value} names={names} />
        </li>
      ))}
    </ul>
  );
}

/** Text as text (never as HTML), a project as its name linking to its page. */
function Part({ part, names }: { part: AuditPart; names: Map<string, ProjectName> }) {
  if (typeof part === 'string') return <>{part}</>;
  if ('text' in part) return <span title={part.title}>{part.text}</span>;
  const project = names.get(part.projectId);
  if (project === undefined) return <span title={part.projectId}>{unnamedProject(part.projectId)}</span>;
  if (!project.linked) return <span title={`${part.projectId} (deleted, or in a team you are not in)`}>{project.name}</span>;
  return (
    <a href={pageUrl('project', { project: part.projectId })} title={part.projectId}>
      {project.name}
    </a>
  );
}
