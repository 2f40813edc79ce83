import type { z } from 'zod';
import type { AlternativeErrorSchema, ErrorEnvelopeSchema, PageMetaSchema } from './schemas';

/** Pagination meta of spec §2.1. */
export type PageMeta = z.output<typeof PageMetaSchema>;

/** Spec §2.1 success envelope (its schema: `successEnvelope(data)` in shared/schemas). */
export interface SuccessEnvelope<T> {
  status: true;
  message: string;
  data: T;
  meta?: PageMeta;
}

export type ErrorEnvelope = z.output<typeof ErrorEnvelopeSchema>;

/** The spec §5.4 alternative failure body. */
export type AlternativeErrorEnvelope = z.output<typeof AlternativeErrorSchema>;

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
