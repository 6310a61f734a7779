import { useLocation } from 'preact-iso';
import { useEffect, useMemo } from 'preact/hooks';
import { IssueStateLine } from '../../components/issue-state.js';
import { SeverityChip } from '../../components/severity-chip.js';
import { formatNumber } from '../../lib/format.js';
import { STATE_VIEW_LABELS, STATE_VIEWS, type StateView, stateView } from '../../lib/issue-triage.js';
import {
  GROUPINGS,
  type Grouping,
  groupSizes,
  groupsOf,
  type IssueEntry,
  type IssueListKind,
  issueEntries,
  searchEntries,
  sortEntries,
} from '../../lib/issue-search.js';
import { choiceParam, pageOf, pageParam, type Severity, withQuery } from '../../lib/report-view.js';
import { IssueTriage, SelectBox, type Triage, TriageBar } from '../issues/triage.js';
import { CodeSnippet } from './code-snippet.js';
import { FilePath } from './file-path.js';
import { Pagination } from './pagination.js';
import type { ReportIssue, ReportResult } from './report-types.js';
import { SearchBox } from './search-box.js';

/** Issues a page: enough to read, few enough that a 4,000-issue report renders at once. */
export const ISSUES_PER_PAGE = 50;

type Snippet = NonNullable<ReportIssue['code_snippet']>;
type Entry = IssueEntry<Snippet>;

const GROUPING_LABELS: Record<Grouping, string> = { severity: 'Severity', file: 'File', analyzer: 'Analyzer' };

const TITLES: Record<IssueListKind, string> = { issues: 'All issues', new: 'New issues', suppressed: 'Suppressed issues' };

interface IssueBrowserProps {
  kind: IssueListKind;
  results: ReportResult[];
  /** Links into the repository at the report's commit; null when the host or the commit is unknown. */
  fileLink: ((file: string, line?: number | null) => string) | null;
  /** Said above the list, e.g. why there is no new issue without a baseline. */
  hint?: string;
  /** E8.9: the states, the selection and the action panel (no control for a read-only member). */
  triage: Triage;
}

/**
 * One of the report's issue lists, searched (`?q=`), grouped (`?group=file`) and 50 a page
 * (`?page=2`), all in the URL. The whole report is in memory, so this is a filter over an array,
 * its search text lowercased once per issue (lib/issue-search.ts).
 */
export function IssueBrowser({ kind, results, fileLink, hint, triage }: IssueBrowserProps) {
  const { path, query, route } = useLocation();
  const grouping = choiceParam(query.group, GROUPINGS) ?? 'severity';
  const search = query.q ?? '';
  // E8.9: dismissed issues show apart, behind their own link (`?state=dismissed`), each with its reason.
  const view: StateView = choiceParam(query.state, STATE_VIEWS) ?? 'open';
  const all = useMemo(() => issueEntries<Snippet>(results, kind), [results, kind]);
  const [views, entries] = useMemo(() => {
    const now = new Date().toISOString();
    const counts: Record<StateView, number> = { open: 0, dismissed: 0 };
    const shownHere: Entry[] = [];
    for (const entry of all) {
      const state = entry.fingerprint === null ? entry.state : (triage.overlay.get(entry.fingerprint) ?? entry.state);
      const its = stateView(state, now);
      counts[its] += 1;
      if (its === view) shownHere.push(state === entry.state ? entry : { ...entry, state });
    }
    return [counts, shownHere] as const;
  }, [all, view, triage.overlay]);
  const found = useMemo(() => sortEntries(searchEntries(entries, search), grouping), [entries, search, grouping]);
  const sizes = useMemo(() => groupSizes(found, grouping), [found, grouping]);
  const shown = pageOf(found, pageParam(query.page), ISSUES_PER_PAGE);
  const titleId = `report-${kind}-title`;

  // User Timing: when a list (the first, or a search's) is on screen, for the browser test's measurements.
  useEffect(() => {
    performance.mark('scoreboard:issues-shown', { detail: { kind, search, count: found.length } });
  }, [found]);

  const onPage = shown.items.flatMap((entry) => (entry.fingerprint === null ? [] : [entry.fingerprint]));
  return (
    <section class="panel triage-scope" aria-labelledby={titleId}>
      <h2 id={titleId}>{TITLES[kind]}</h2>
      {hint && <p class="hint">{hint}</p>}
      {kind !== 'suppressed' && (
        <StateViews
          label={`${TITLES[kind]} by decision`}
          view={view}
          counts={views}
          href={(choice) => withQuery(path, query, { state: choice === 'open' ? null : choice, page: null })}
        />
      )}
      <div class="report-filters">
        <SearchBox id={`${kind}-search`} label="Search message, file or analyzer" />
        <div class="field">
          <label for={`${kind}-group`}>Group by</label>
          <select
            id={`${kind}-group`}
            value={grouping}
            onChange={(event) =>
              route(
                withQuery(path, query, { group: event.currentTarget.value === 'severity' ? null : event.currentTarget.value, page: null }),
              )
            }
          >
            {GROUPINGS.map((choice) => (
              <option key={choice} value={choice}>
                {GROUPING_LABELS[choice]}
              </option>
            ))}
          </select>
        </div>
      </div>
      <p class="report-found" aria-live="polite">
        {search.trim() === ''
          ? `${formatNumber(entries.length)} ${view === 'dismissed' ? 'dismissed ' : ''}${entries.length === 1 ? 'issue' : 'issues'}`
          : `${formatNumber(found.length)} of ${formatNumber(entries.length)} issues match “${search.trim()}”`}
      </p>
      {kind !== 'suppressed' && <TriageBar triage={triage} onPage={onPage} />}
      {shown.total === 0 && (
        <p class="empty">
          {entries.length > 0
            ? 'No issue matches the search. Try fewer or other words.'
            : view === 'dismissed'
              ? 'No dismissed issue here: nobody has accepted one, or marked it a false positive or won’t fix.'
              : all.length > 0
                ? 'Every issue here is dismissed: see Dismissed.'
                : emptyText(kind)}
        </p>
      )}
      {groupsOf(shown.items, grouping).map((group) => (
        <div key={group.key} class="issue-group">
          <h3 class="issue-group-title">
            <GroupTitle grouping={grouping} value={group.key} fileLink={fileLink} />{' '}
            <span class="muted">({formatNumber(sizes.get(group.key) ?? group.rows.length)})</span>
          </h3>
          <ul class="issue-list">
            {group.rows.map((entry) => (
              <IssueItem
                key={entry.key}
                entry={entry}
                grouping={grouping}
                fileLink={fileLink}
                triage={kind === 'suppressed' ? null : triage}
              />
            ))}
          </ul>
        </div>
      ))}
      {shown.lastPage > 1 && (
        <Pagination
          label={`Pages of ${TITLES[kind].toLowerCase()}`}
          page={shown.page}
          lastPage={shown.lastPage}
          summary={`${formatNumber(shown.from)}–${formatNumber(shown.to)} of ${formatNumber(shown.total)}`}
          onPage={(target) => {
            route(withQuery(path, query, { page: target }));
            // The next page starts at the list's top, not at the foot where its button was.
            document.getElementById(titleId)?.scrollIntoView({ block: 'start' });
          }}
        />
      )}
    </section>
  );
}

/** The two lists of an issue list (E8.3's `state`): the issues without a dismissal in force, and the dismissed ones, with their counts. */
export function StateViews({
  label,
  view,
  counts,
  href,
}: {
  label: string;
  view: StateView;
  counts: Record<StateView, number> | null;
  href: (view: StateView) => string;
}) {
  return (
    <nav class="state-views" aria-label={label}>
      <ul>
        {STATE_VIEWS.map((choice) => (
          <li key={choice}>
            <a href={href(choice)} aria-current={view === choice ? 'true' : undefined}>
              {STATE_VIEW_LABELS[choice]}
              {counts !== null && <span class="tab-count"> {formatNumber(counts[choice])}</span>}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

function emptyText(kind: IssueListKind): string {
  if (kind === 'new') return 'No new issue: everything this report found was there in its baseline.';
  if (kind === 'suppressed') return 'The client suppressed no issue in this run.';
  return 'No issues: every analyzer that ran found nothing to report.';
}

function GroupTitle({ grouping, value, fileLink }: { grouping: Grouping; value: string; fileLink: IssueBrowserProps['fileLink'] }) {
  if (grouping === 'severity') return <SeverityChip severity={value as Severity} />;
  if (grouping === 'analyzer') return <>{value}</>;
  if (value === '') return <>No file</>;
  return <FilePath file={value} href={fileLink?.(value)} />;
}

function IssueItem({
  entry,
  grouping,
  fileLink,
  triage,
}: {
  entry: Entry;
  grouping: Grouping;
  fileLink: IssueBrowserProps['fileLink'];
  triage: Triage | null;
}) {
  const where = entry.file === null ? null : entry.line === null ? entry.file : `${entry.file}:${entry.line}`;
  const fingerprint = triage === null ? null : entry.fingerprint;
  return (
    <li class="issue">
      <p class="issue-message">
        {fingerprint !== null && triage && <SelectBox triage={triage} fingerprint={fingerprint} label={entry.message} />}
        {grouping !== 'severity' && <SeverityChip severity={entry.severity} />}
        <span>{entry.message}</span>
        {entry.change === 'new' && <span class="tag">New</span>}
      </p>
      <p class="issue-meta">
        {grouping !== 'analyzer' && <span class="muted">{entry.analyzerName}</span>}
        {entry.file !== null && <FilePath file={entry.file} line={entry.line} href={fileLink?.(entry.file, entry.line)} />}
      </p>
      {fingerprint !== null && triage && (
        <div class="issue-triage">
          <IssueStateLine state={entry.state} />
          <IssueTriage triage={triage} fingerprint={fingerprint} label={entry.message} state={entry.state} />
        </div>
      )}
      {entry.suppression !== null && <p class="issue-suppression">Suppressed by {entry.suppression}</p>}
      {entry.recommendation !== '' && <p class="issue-recommendation">{entry.recommendation}</p>}
      {entry.snippet && Object.keys(entry.snippet.lines).length > 0 && (
        <CodeSnippet snippet={entry.snippet} where={where ?? entry.analyzerName} file={entry.file} />
      )}
    </li>
  );
}
