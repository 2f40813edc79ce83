/** Pagination meta of spec §2.1. */
export interface PageMeta {
  total: number;
  per_page: number;
  current_page: number;
  last_page: number;
}

export interface SuccessEnvelope<T> {
  status: true;
  message: string;
  data: T;
  meta?: PageMeta;
}

export interface ErrorEnvelope {
  status: false;
  code: string;
  message: string;
}

/** The spec §5.4 alternative failure body. */
export interface AlternativeErrorEnvelope {
  status: 'failed';
  message: string;
  data: null;
}

/** Wraps a payload in the spec §2.1 success envelope. */
export function ok<T>(message: string, data: T, meta?: PageMeta): SuccessEnvelope<T> {
  return meta ? { status: true, message, data, meta } : { status: true, message, data };
}

/** Slices `items` into one page and its meta (page numbers start at 1). */
export function paginate<T>(items: readonly T[], page: number, perPage: number) {
  const total = items.length;
  const lastPage = Math.max(1, Math.ceil(total / perPage));
  const start = (page - 1) * perPage;
  return {
    data: items.slice(start, start + perPage),
    meta: { total, per_page: perPage, current_page: page, last_page: lastPage } satisfies PageMeta,
  };
}
