import { plural, shortCommit } from '../../wire/plain-text.js';
import type { WebhookEvent } from '../webhook-event-names.js';

/**
 * E11.5: what a chat message says about an event, in plain words, before any platform's markup:
 * each renderer (slack.ts, teams.ts, discord.ts) escapes and cuts these texts to its own limits.
 * Read from E6's body as stored with the delivery, so a redelivery says what the event said; the
 * body is read leniently (a field missing or of another type is left out, never an error).
 */
export interface ChatMessage {
  event: WebhookEvent;
  /** One line, naming the project. */
  title: string;
  /** A sentence or two. */
  summary: string;
  /** Label and value pairs, in order; values are one line each. */
  facts: { label: string; value: string }[];
  /** Further lines shown as a list (a failed gate's reasons); empty for most events. */
  details: string[];
  /** Links into the dashboard, the main one first; none without PUBLIC_URL. */
  links: { label: string; url: string }[];
  /** How the message is coloured where a platform colours: a failure is `bad`. */
  tone: 'good' | 'bad' | 'warning' | 'neutral';
  /** When the event happened (ISO 8601), from the body. */
  at: string;
}

type Json = Record<string, unknown>;

const object = (value: unknown): Json => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : {});
const text = (value: unknown): string | null => (typeof value === 'string' && value.trim() !== '' ? value : null);
const count = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);

/** An issue status as words: `false_positive` → `false positive`. */
const statusWords = (status: string) => status.replace(/_/g, ' ');

/**
 * The message for E6's body `payload` (`{type, timestamp, data}`); `publicUrl` is PUBLIC_URL
 * without its trailing slash, the base of the dashboard links (none when it is unset: a chat
 * message's links must be absolute, and the worker has no request to take a host from).
 */
export function chatMessage(payload: string, publicUrl: string | undefined): ChatMessage {
  const body = object(JSON.parse(payload));
  const event = String(body.type) as WebhookEvent;
  const data = object(body.data);
  const project = object(data.project);
  const projectName = text(project.name) ?? 'a project';
  const projectId = text(project.id);
  const page = (path: string) => (publicUrl === undefined ? null : `${publicUrl}${path}`);
  const projectPage = (suffix = '') => (projectId === null ? null : page(`/projects/${encodeURIComponent(projectId)}${suffix}`));
  const links: ChatMessage['links'] = [];
  const link = (label: string, url: string | null) => {
    if (url !== null) links.push({ label, url });
  };
  const base = { event, at: text(body.timestamp) ?? '', links, details: [] as string[] };

  switch (event) {
    case 'report.created':
    case 'report.gate_failed': {
      const report = object(data.report);
      const gate = data.report !== undefined && report.gate !== null ? object(report.gate) : null;
      const gatePassed = gate === null || typeof gate.passed !== 'boolean' ? null : gate.passed;
      const changes = object(report.changes);
      const score = count(report.score);
      const issues = count(report.total_issues);
      const facts: ChatMessage['facts'] = [];
      const fact = (label: string, value: string | null) => {
        if (value !== null) facts.push({ label, value });
      };
      fact('Score', score === null ? null : `${score}/100`);
      fact('Issues', issues === null ? null : String(issues));
      if (count(changes.new) !== null) fact('New', String(changes.new));
      if (count(changes.fixed) !== null) fact('Fixed', String(changes.fixed));
      fact('Quality gate', gatePassed === null ? null : gatePassed ? 'passed' : 'failed');
      fact('Branch', text(report.branch));
      const commit = text(report.commit);
      fact('Commit', commit === null ? null : shortCommit(commit));
      const pullRequest = text(report.pull_request);
      fact('Pull request', pullRequest === null ? null : `#${pullRequest}`);
      fact('Triggered by', text(report.triggered_by));
      const reportUuid = text(report.uuid);
      link('Open the report', reportUuid === null ? null : page(`/reports/${encodeURIComponent(reportUuid)}`));
      link('Open the project', projectPage());
      const reasons = gate !== null && Array.isArray(gate.reasons) ? gate.reasons.flatMap((reason) => text(reason) ?? []) : [];
      const where = [
        text(report.branch) === null ? null : `on ${text(report.branch)}`,
        pullRequest === null ? null : `for pull request #${pullRequest}`,
      ].filter((part) => part !== null);
      const scored = score === null ? 'A report was uploaded' : `A report scoring ${score}/100 was uploaded`;
      const found = issues === null ? '' : ` with ${plural(issues, 'issue')}`;
      const changed = count(changes.new) === null ? '' : ` (${count(changes.new)} new, ${count(changes.fixed)} fixed against its baseline)`;
      const sentence = `${scored}${where.length > 0 ? ` ${where.join(' ')}` : ''}${found}${changed}.`;
      if (event === 'report.gate_failed') {
        return {
          ...base,
          title: `Quality gate failed for ${projectName}`,
          summary: `${sentence} The quality gate failed${reasons.length > 0 ? ':' : '.'}`,
          facts,
          details: reasons,
          tone: 'bad',
        };
      }
      const gateWords = gatePassed === null ? '' : gatePassed ? ' The quality gate passed.' : ' The quality gate failed.';
      return {
        ...base,
        title: `New report for ${projectName}${score === null ? '' : `: ${score}/100`}`,
        summary: `${sentence}${gateWords}`,
        facts,
        details: gatePassed === false ? reasons : [],
        tone: gatePassed === false ? 'bad' : gatePassed === true ? 'good' : 'neutral',
      };
    }

    case 'run.failed': {
      const failure = object(data.failure);
      const label = text(failure.failure_label) ?? text(failure.failure_reason);
      const facts: ChatMessage['facts'] = [];
      const fact = (name: string, value: string | null) => {
        if (value !== null) facts.push({ label: name, value });
      };
      fact('Reason', text(failure.failure_reason));
      fact('Triggered by', text(failure.triggered_by));
      fact('Framework version', text(failure.framework_version));
      fact('Package version', text(failure.package_version));
      fact('Occurred at', text(failure.occurred_at));
      link('Open the failed runs', projectPage('/failed-runs'));
      const error = text(failure.error_message);
      return {
        ...base,
        title: `A run failed for ${projectName}`,
        summary: `The analysis did not produce a report${label === null ? '.' : `: ${label}.`}`,
        facts,
        details: error === null ? [] : [error],
        tone: 'bad',
      };
    }

    case 'project.token_regenerated':
      link('Open the project', projectPage());
      return {
        ...base,
        title: `The project token of ${projectName} was regenerated`,
        summary: 'Uploads with the old token are refused from now on: give your CI the new one.',
        facts: [],
        tone: 'warning',
      };

    case 'project.archived':
      link('Open the project', projectPage());
      return {
        ...base,
        title: `${projectName} was archived`,
        summary: 'The project accepts no more uploads; its reports stay readable.',
        facts: [],
        tone: 'neutral',
      };

    case 'issue.updated': {
      const state = object(data.state);
      const status = text(state.status);
      const fingerprint = text(state.fingerprint);
      const assignee = object(state.assignee);
      const updatedBy = object(state.updated_by);
      const ticket = object(state.ticket);
      const seen = object(state.last_seen_report);
      const issue = object(state.issue);
      const location = object(issue.location);
      const file = text(location.file);
      const line = count(location.line);
      const facts: ChatMessage['facts'] = [];
      const fact = (label: string, value: string | null) => {
        if (value !== null) facts.push({ label, value });
      };
      fact('Status', status === null ? null : statusWords(status));
      fact('Severity', text(issue.severity));
      fact('Location', file === null ? null : line === null ? file : `${file}:${line}`);
      fact('Analyzer', text(issue.analyzer_name));
      fact('Assignee', state.assignee === null ? 'nobody' : text(assignee.name));
      fact('Expires', text(state.expires_at));
      fact('Changed by', text(updatedBy.name));
      fact('Ticket', text(ticket.key));
      fact('Issue', fingerprint);
      const seenIn = text(seen.uuid);
      link(
        'Open the issue',
        seenIn === null || fingerprint === null
          ? null
          : page(`/reports/${encodeURIComponent(seenIn)}#issue-${encodeURIComponent(fingerprint)}`),
      );
      link('Open the project’s issues', projectPage('/issues'));
      const comment = text(state.comment);
      const by = text(updatedBy.name);
      const what = text(issue.message);
      return {
        ...base,
        title: `An issue in ${projectName} is now ${status === null ? 'changed' : statusWords(status)}`,
        summary:
          `${by === null ? 'Someone' : by} set the issue${what === null ? '' : ` "${what}"`}` +
          `${status === null ? '' : ` to ${statusWords(status)}`}.`,
        facts,
        details: comment === null ? [] : [`Comment: ${comment}`],
        tone: status === 'confirmed' ? 'warning' : status === 'open' ? 'neutral' : 'good',
      };
    }

    case 'ping':
      link('Open the project', projectPage());
      return {
        ...base,
        title: `Ping from Scoreboard for ${projectName}`,
        summary: 'This webhook reaches its receiver: the project’s events will be posted here.',
        facts: [],
        tone: 'good',
      };

    default:
      // An event this version does not know (a redelivery of a newer one's): its name, in words.
      link('Open the project', projectPage());
      return { ...base, title: `Scoreboard event ${String(body.type)} for ${projectName}`, summary: '', facts: [], tone: 'neutral' };
  }
}
