import { useState } from 'preact/hooks';
import { api, call } from '../../api/client.js';
import { ProblemMessage } from '../../components/problem-message.js';
import { CODE_HOST_CALLS } from '../../lib/code-host.js';
import { useApi } from '../../lib/use-api.js';
import { DeliveryPager, DeliveryTable } from './delivery-table.js';

/**
 * E10.4's calls to the project's code host for its reports (a commit's status, a pull request's
 * comment), newest first, a page at a time: whether each went through, and the host's words when
 * it did not.
 */
export function CodeHostDeliveries({ projectId }: { projectId: string }) {
  const [page, setPage] = useState(1);
  const deliveries = useApi(
    async () =>
      call(api.GET('/api/v1/projects/{project}/code-host/deliveries', { params: { path: { project: projectId }, query: { page } } })),
    [projectId, page],
  );
  const meta = deliveries.data?.meta;
  return (
    <div class="deliveries stack">
      <h3>Posted to the code host</h3>
      <ProblemMessage problem={deliveries.problem} />
      {deliveries.data?.data.length === 0 && (
        <p class="muted">
          Nothing posted yet: the next report with a commit sets its status, and a report of a pull request comments on it.
        </p>
      )}
      {deliveries.data && deliveries.data.data.length > 0 && (
        <DeliveryTable
          label="Calls to the code host"
          rows={deliveries.data.data}
          whatLabel="Call"
          what={(delivery) => CODE_HOST_CALLS[delivery.event]}
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
