import { paginate } from '../shared/envelope';
import { notFound } from '../shared/errors';
import { ALL_INCLUDES, NO_INCLUDES, type Caller, type OrdersCore } from './order.core';
import type { Include, ListQuery } from './model';
import type { Order } from './model';
import { toDetail, toSummary, type OrderDetail } from './order.view';

/** Rendered details kept, newest first out of a Map's insertion order. */
const RENDER_CACHE_SIZE = 2048;

/** Reading orders: by reference (the caller's own, or any for the control API), lists, renders. */
export function createQueries(core: OrdersCore) {
  const { store } = core;

  /** An order of the caller's (404 for anyone else's: its existence is not revealed). */
  function owned(caller: Caller, reference: string): Order {
    const order = store.get(reference);
    if (!order || order.env !== caller.env || order.clientId !== caller.partner.client_id) {
      throw notFound(`Order ${reference} not found`);
    }
    return order;
  }

  /** Any order (control API). */
  function find(reference: string): Order {
    const order = store.get(reference);
    if (!order) throw notFound(`Order ${reference} not found`);
    return order;
  }

  function list(caller: Caller, q: ListQuery) {
    const matching = store.list({ clientId: caller.partner.client_id, env: caller.env, ...(q.status ? { status: q.status } : {}) });
    const page = paginate(matching, q.page, q.per_page);
    return { data: page.data.map((o) => toSummary(o, core.precisions(o))), meta: page.meta };
  }

  /**
   * The order detail as JSON, rendered once per change of the order: partners poll orders far
   * more often than orders change. A small cache of the latest renders, keyed by version.
   */
  const rendered = new Map<string, { version: number; json: string }>();
  function detailJson(caller: Caller, reference: string, include: ReadonlySet<Include> = NO_INCLUDES): string {
    const order = owned(caller, reference);
    const key = `${reference}|${include.has('payout') ? 'p' : ''}${include.has('timeline') ? 't' : ''}`;
    const hit = rendered.get(key);
    if (hit && hit.version === order.version) return hit.json;
    const json = JSON.stringify(toDetail(order, core.precisions(order), include));
    rendered.delete(key);
    rendered.set(key, { version: order.version, json });
    if (rendered.size > RENDER_CACHE_SIZE) rendered.delete(rendered.keys().next().value!);
    return json;
  }

  return {
    owned,
    find,
    list,
    detailJson,
    detail: (order: Order, include: ReadonlySet<Include> = ALL_INCLUDES): OrderDetail => toDetail(order, core.precisions(order), include),
    summary: (order: Order) => toSummary(order, core.precisions(order)),
    /** Drops the cached renders of these orders (evicted). */
    forget(orders: Iterable<Order>): void {
      for (const order of orders) for (const variant of ['', 'p', 't', 'pt']) rendered.delete(`${order.reference}|${variant}`);
    },
    clearCache: () => rendered.clear(),
  };
}

export type Queries = ReturnType<typeof createQueries>;
