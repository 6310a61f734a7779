import { Type, type TSchema } from 'typebox';
import { NullableString } from './schemas.js';

/** D16: the page size of every list (projects, reports, failed runs). */
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
export function paginationEnvelope(args: {
  path: string;
  page: number;
  total: number;
  count: number;
  perPage?: number;
  /** The list's filters, kept in every link (`?kind=new&page=2`); absent ones are left out. */
  filters?: Record<string, string | undefined>;
}) {
  const perPage = args.perPage ?? PAGE_SIZE;
  const lastPage = Math.max(1, Math.ceil(args.total / perPage));
  const filters = Object.entries(args.filters ?? {}).filter((entry): entry is [string, string] => entry[1] !== undefined);
  const prefix = filters.map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}&`).join('');
  const url = (page: number) => `${args.path}?${prefix}page=${page}`;
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

/** D27: the largest page number; past it a page's offset no longer fits every database's integers. */
export const MAX_PAGE = 2_147_483_647;

/** D16/D27: `page` is decimal digits, 1..2147483647 (else 422; wire/validation.ts refuses other spellings). */
export const PageQuery = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE, default: 1 })),
});

/** The D16 envelope around a page of `item`. */
export const Paginated = <T extends TSchema>(item: T) =>
  Type.Object({
    data: Type.Array(item),
    links: Type.Object({
      first: Type.String(),
      last: Type.String(),
      prev: NullableString(),
      next: NullableString(),
    }),
    meta: Type.Object({
      current_page: Type.Integer(),
      per_page: Type.Integer(),
      total: Type.Integer(),
      last_page: Type.Integer(),
      from: Type.Unsafe<number | null>({ type: ['integer', 'null'] }),
      to: Type.Unsafe<number | null>({ type: ['integer', 'null'] }),
      path: Type.String(),
    }),
  });
