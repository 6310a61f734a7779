/** D16: the project list's page size. */
export const PAGE_SIZE = 20;

export interface PageLinks {
  first: string;
  last: string;
  prev: string | null;
  next: string | null;
}

export interface PageMeta {
  current_page: number;
  per_page: number;
  total: number;
  last_page: number;
  from: number | null;
  to: number | null;
  path: string;
}

export function pageOffset(page: number, perPage = PAGE_SIZE): number {
  return (page - 1) * perPage;
}

/**
 * D16: absolute links with `?page=N`; `last` is 1 when there is nothing; `prev`/`next` are null at
 * the ends; `from`/`to` are null on an empty page (including a page past the end).
 */
export function paginationEnvelope(args: { path: string; page: number; total: number; count: number; perPage?: number }) {
  const perPage = args.perPage ?? PAGE_SIZE;
  const lastPage = Math.max(1, Math.ceil(args.total / perPage));
  const url = (page: number) => `${args.path}?page=${page}`;
  const offset = pageOffset(args.page, perPage);
  const links: PageLinks = {
    first: url(1),
    last: url(lastPage),
    prev: args.page > 1 ? url(args.page - 1) : null,
    next: args.page < lastPage ? url(args.page + 1) : null,
  };
  const meta: PageMeta = {
    current_page: args.page,
    per_page: perPage,
    total: args.total,
    last_page: lastPage,
    from: args.count > 0 ? offset + 1 : null,
    to: args.count > 0 ? offset + args.count : null,
    path: args.path,
  };
  return { links, meta };
}
