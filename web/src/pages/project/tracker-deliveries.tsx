import { useState } from 'preact/hooks';
import { api, call } from '../../api/client.js';
import { ProblemMessage } from '../../components/problem-message.js';
import { ScrollRegion } from '../../components/scroll-region.js';
import { formatDate } from '../../lib/format.js';
import { useApi } from '../../lib/use-api.js';

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
        <ScrollRegion label="Calls to the tracker">
          <table class="report-table stacked-table">
            <thead>
              <tr>
                <th scope="col">Created</th>
                <th scope="col">Call</th>
                <th scope="col">Status</th>
                <th scope="col" class="number">
                  Attempts
                </th>
                <th scope="col">Response</th>
              </tr>
            </thead>
            <tbody>
              {deliveries.data.data.map((delivery) => (
                <tr key={delivery.id}>
                  <td data-label="Created">{formatDate(delivery.created_at)}</td>
                  <td data-label="Call">{CALLS[delivery.event]}</td>
                  <td class="short" data-label="Status">
                    {delivery.status}
                  </td>
                  <td class="number" data-label="Attempts">
                    {delivery.attempts}
                  </td>
                  <td data-label="Response">
                    {delivery.error ?? (delivery.response_status === null ? '—' : `HTTP ${delivery.response_status}`)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollRegion>
      )}
      <div class="webhook-actions">
        <button type="button" class="secondary" onClick={deliveries.reload}>
          Refresh
        </button>
        {meta && meta.last_page > 1 && (
          <>
            <button type="button" class="secondary" disabled={page <= 1} onClick={() => setPage(page - 1)}>
              Newer
            </button>
            <span>
              Page {meta.current_page} of {meta.last_page}
            </span>
            <button type="button" class="secondary" disabled={page >= meta.last_page} onClick={() => setPage(page + 1)}>
              Older
            </button>
          </>
        )}
      </div>
    </div>
  );
}
