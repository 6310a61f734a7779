interface PaginationProps {
  /** The navigation's accessible name, e.g. "Pages of changes". */
  label: string;
  page: number;
  lastPage: number;
  /** What the page shows, e.g. "51–100 of 3,972". */
  summary: string;
  onPage: (page: number) => void;
}

/** Previous / next through pages whose number lives in the URL (the caller routes). */
export function Pagination({ label, page, lastPage, summary, onPage }: PaginationProps) {
  return (
    <nav class="pagination" aria-label={label}>
      <button type="button" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        Previous
      </button>
      <span>
        Page {page} of {lastPage} <span class="muted">({summary})</span>
      </span>
      <button type="button" disabled={page >= lastPage} onClick={() => onPage(page + 1)}>
        Next
      </button>
    </nav>
  );
}
