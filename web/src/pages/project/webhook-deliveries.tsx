import { useState } from 'preact/hooks';
import { api, call } from '../../api/client.js';
import { asProblem, type Problem } from '../../api/problems.js';
import { ProblemMessage } from '../../components/problem-message.js';
import { formatDate } from '../../lib/format.js';
import { useApi } from '../../lib/use-api.js';
import { DeliveryPager, DeliveryTable } from './delivery-table.js';

/**
 * A webhook's deliveries, newest first, a page at a time; "Refresh" to see a pending one's outcome.
 * "Redeliver" sends a delivery's event again as a new delivery (E6), which then heads the list.
 */
export function WebhookDeliveries({ projectId, webhookId, url }: { projectId: string; webhookId: string; url: string }) {
  const [page, setPage] = useState(1);
  const deliveries = useApi(
    async () =>
      call(
        api.GET('/api/v1/projects/{project}/webhooks/{webhook}/deliveries', {
          params: { path: { project: projectId, webhook: webhookId }, query: { page } },
        }),
      ),
    [projectId, webhookId, page],
  );
  const [problem, setProblem] = useState<Problem | null>(null);
  const [status, setStatus] = useState('');
  const redeliver = async (deliveryId: string) => {
    setProblem(null);
    setStatus('');
    try {
      await call(
        api.POST('/api/v1/projects/{project}/webhooks/{webhook}/deliveries/{delivery}/redeliver', {
          params: { path: { project: projectId, webhook: webhookId, delivery: deliveryId } },
        }),
      );
      setStatus('Redelivery queued: it is the newest delivery.');
      // The new delivery is the newest: on the first page.
      if (page === 1) deliveries.reload();
      else setPage(1);
    } catch (error) {
      setProblem(asProblem(error));
    }
  };
  const meta = deliveries.data?.meta;
  return (
    <div class="deliveries">
      <ProblemMessage problem={deliveries.problem ?? problem} />
      <p role="status">{status}</p>
      {deliveries.data?.data.length === 0 && <p class="muted">No deliveries yet. Send a ping to try the webhook.</p>}
      {deliveries.data && deliveries.data.data.length > 0 && (
        <DeliveryTable
          label={`Deliveries to ${url}`}
          rows={deliveries.data.data}
          whatLabel="Event"
          what={(delivery) => delivery.event}
          response={(delivery) => (delivery.response_status === null ? (delivery.error ?? '—') : `HTTP ${delivery.response_status}`)}
          action={(delivery) => (
            // Its name says which delivery: every row has one.
            <button
              type="button"
              class="secondary"
              aria-label={`Redeliver the ${delivery.event} of ${formatDate(delivery.created_at)}`}
              onClick={() => void redeliver(delivery.id)}
            >
              Redeliver
            </button>
          )}
        />
      )}
      <div class="webhook-actions">
        <button type="button" class="secondary" onClick={deliveries.reload}>
          Refresh deliveries
        </button>
        <DeliveryPager meta={meta} page={page} onPage={setPage} />
      </div>
    </div>
  );
}
