/** Newer and older pages of a list (D16's pages), for a list whose page is in the URL. */
export function PageNav({
  label,
  page,
  lastPage,
  onPage,
}: {
  label: string;
  page: number;
  lastPage: number;
  onPage: (page: number) => void;
}) {
  if (lastPage <= 1) return null;
  return (
    <nav class="pagination" aria-label={label}>
      <button type="button" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        Newer
      </button>
      <span>
        Page {page} of {lastPage}
      </span>
      <button type="button" disabled={page >= lastPage} onClick={() => onPage(page + 1)}>
        Older
      </button>
    </nav>
  );
}
