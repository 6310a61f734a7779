import { formatDate } from '../lib/format.js';
import { type IssueStatus, isDismissal, personName, STATUS_LABELS, type StateLike } from '../lib/issue-triage.js';

/** An issue's status (E8.1) as the same chip on every page; a dismissal's chip is quieter than an open one's. */
export function StatusChip({ status }: { status: IssueStatus }) {
  return (
    <span class={`status status-${status.replace('_', '-')}${isDismissal(status) ? ' status-dismissal' : ''}`}>
      {STATUS_LABELS[status]}
    </span>
  );
}

/**
 * An issue's state in a line: its status and assignee; a decided one adds who decided and when, a
 * dismissal its reason (the comment) and, for an acceptance, until when.
 */
export function IssueStateLine({ state }: { state: StateLike | null | undefined }) {
  const status = state?.status ?? 'open';
  return (
    <div class="issue-state">
      <p class="issue-state-line">
        <StatusChip status={status} />
        {state?.assignee ? (
          <span class="issue-assignee">Assigned to {personName(state.assignee)}</span>
        ) : (
          <span class="muted">Unassigned</span>
        )}
        {state?.updated_at && (
          <span class="muted">
            {' '}
            · decided by {personName(state.updated_by)} on <time dateTime={state.updated_at}>{formatDate(state.updated_at)}</time>
          </span>
        )}
        {status === 'accepted' && state?.expires_at && (
          <span class="muted">
            {' '}
            · until <time dateTime={state.expires_at}>{formatDate(state.expires_at)}</time>
          </span>
        )}
      </p>
      {state?.comment && (
        <p class="issue-state-comment">
          <span class="muted">{isDismissal(status) ? 'Reason: ' : 'Comment: '}</span>
          {state.comment}
        </p>
      )}
    </div>
  );
}
