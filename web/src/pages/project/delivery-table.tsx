import type { ComponentChildren } from 'preact';
import { ScrollRegion } from '../../components/scroll-region.js';
import { formatDate } from '../../lib/format.js';

/** A delivery as E6 lists a webhook's, and the tracker's calls are listed alike. */
export interface DeliveryRow {
  id: string;
  status: string;
  attempts: number;
  response_status: number | null;
  error: string | null;
  created_at: string;
}

/**
 * A page of deliveries, newest first: when, what (`what`, the event or call), status, attempts and
 * the last answer; `action` adds a last column (a webhook's "Redeliver").
 */
export function DeliveryTable<Row extends DeliveryRow>({
  label,
  rows,
  whatLabel,
  what,
  response,
  action,
}: {
  label: string;
  rows: readonly Row[];
  whatLabel: string;
  what: (row: Row) => string;
  response: (row: Row) => string;
  action?: (row: Row) => ComponentChildren;
}) {
  return (
    <ScrollRegion label={label}>
      <table class="report-table stacked-table">
        <thead>
          <tr>
            <th scope="col">Created</th>
            <th scope="col">{whatLabel}</th>
            <th scope="col">Status</th>
            <th scope="col" class="number">
              Attempts
            </th>
            <th scope="col">Response</th>
            {action && <th scope="col">Actions</th>}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.id}>
              <td data-label="Created">{formatDate(row.created_at)}</td>
              <td data-label={whatLabel}>{what(row)}</td>
              <td class="short" data-label="Status">
                {row.status}
              </td>
              <td class="number" data-label="Attempts">
                {row.attempts}
              </td>
              <td data-label="Response">{response(row)}</td>
              {action && <td class="stacked-action">{action(row)}</td>}
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollRegion>
  );
}

/** Newer and older pages of a list of deliveries, and where the reader is. */
export function DeliveryPager({
  meta,
  page,
  onPage,
}: {
  meta: { current_page: number; last_page: number } | undefined;
  page: number;
  onPage: (page: number) => void;
}) {
  if (!meta || meta.last_page <= 1) return null;
  return (
    <>
      <button type="button" class="secondary" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        Newer
      </button>
      <span>
        Page {meta.current_page} of {meta.last_page}
      </span>
      <button type="button" class="secondary" disabled={page >= meta.last_page} onClick={() => onPage(page + 1)}>
        Older
      </button>
    </>
  );
}
