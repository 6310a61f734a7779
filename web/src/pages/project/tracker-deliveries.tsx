import { useState } from 'preact/hooks';
import { api, call } from '../../api/client.js';
import { ProblemMessage } from '../../components/problem-message.js';
import { useApi } from '../../lib/use-api.js';
import { DeliveryPager, DeliveryTable } from './delivery-table.js';

const CALLS = { ticket_comment: 'Comment: fixed', ticket_close: 'Close the ticket' } as const;

/**
 * E9.5's calls to the project's tracker when issues were fixed (a comment on the ticket, then its
 * closing on GitHub and GitLab), newest first, a page at a time: whether each went through, and the
 * provider's words when it did not.
 */
export function TrackerDeliveries({ projectId }: { projectId: string }) {
  const [page, setPage] = useState(1);
  const deliveries = useApi(
    async () =>
      call(api.GET('/api/v1/projects/{project}/tracker/deliveries', { params: { path: { project: projectId }, query: { page } } })),
    [projectId, page],
  );
  const meta = deliveries.data?.meta;
  return (
    <div class="deliveries stack">
      <h3>When issues were fixed</h3>
      <ProblemMessage problem={deliveries.problem} />
      {deliveries.data?.data.length === 0 && (
        <p class="muted">
          Nothing sent yet: a later report that fixes an issue with a ticket comments on it (and closes GitHub and GitLab issues).
        </p>
      )}
      {deliveries.data && deliveries.data.data.length > 0 && (
        <DeliveryTable
          label="Calls to the tracker"
          rows={deliveries.data.data}
          whatLabel="Call"
          what={(delivery) => CALLS[delivery.event]}
          response={(delivery) => delivery.error ?? (delivery.response_status === null ? '—' : `HTTP ${delivery.response_status}`)}
        />
      )}
      <div class="webhook-actions">
        <button type="button" class="secondary" onClick={deliveries.reload}>
          Refresh
        </button>
        <DeliveryPager meta={meta} page={page} onPage={setPage} />
      </div>
    </div>
  );
}
