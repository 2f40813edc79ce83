import * as z from 'zod';
import { OrderSnapshotSchema, QuoteSnapshotSchema } from './model';

/**
 * The orders' part of a state snapshot (CONTRACT §13): every order with its machine snapshot
 * (status and context), every remembered quote. Timers are not here: the clock lists them in
 * firing order with their tags, and the service re-creates each from its tag. How an order is
 * written into it and read back is the store's (`store.snapshot`, `store.restore`).
 */

export const OrdersStateSchema = z.object({
  orders: z.array(OrderSnapshotSchema),
  quotes: z.array(QuoteSnapshotSchema),
  evicted_orders: z.number().int().nonnegative(),
});
export type OrdersState = z.output<typeof OrdersStateSchema>;
