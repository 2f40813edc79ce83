import * as z from 'zod';
import { CLOCK_MODES, ClockStateSchema } from '../../clock/clock.schemas';
import { IdsStateSchema } from '../../shared/ids';
import { DueInstant } from '../../shared/schemas';
import { PartnerRecordSchema, RevokedKeySchema } from '../../auth/partner.schemas';
import { FaultsStateSchema } from '../../http/faults/fault.schemas';
import { lastStatusEntered, OrderSnapshotSchema, QuoteSnapshotSchema } from '../../orders/model';
import { DeliveryRecordSchema } from '../../webhooks/delivery';
import { WebhookChaosSchema } from '../../webhooks/chaos';
import { MarketStateSchema } from '../../reference/market';

/** The format of `GET`/`PUT /sandbox/state` (CONTRACT §13); bumped on any incompatible change. */
export const STATE_FORMAT_VERSION = 1;

/** A pending timer: when it fires, and what for (its module re-creates it from the tag). */
const TimerSchema = z.object({
  // CONTRACT §13: set ahead of the clock, so near its ceiling past it (what is saved, loads again)
  due: DueInstant,
  label: z.string(),
  tag: z.discriminatedUnion('kind', [
    // named, so the document's discriminator on `kind` can refer to them
    z
      .object({ kind: z.literal('order'), reference: z.string(), id: z.string(), event: z.looseObject({ type: z.string() }) })
      .meta({ id: 'StateOrderTimer' }),
    z.object({ kind: z.literal('quote_forget'), quote_id: z.string() }).meta({ id: 'StateQuoteTimer' }),
    z.object({ kind: z.literal('delivery_retry'), id: z.string() }).meta({ id: 'StateDeliveryTimer' }),
  ]),
});
export type TimerSnapshot = z.output<typeof TimerSchema>;

/**
 * A saved order: its snapshot, whose status is the last its timeline entered (CONTRACT §13: the
 * routes move an order's status only with its timeline; the simulate route is how to move one).
 */
const SavedOrderSchema = OrderSnapshotSchema.refine((o) => lastStatusEntered(o.timeline) === o.status, {
  path: ['status'],
  message: "is not the last status on the order's timeline (to move an order, use POST /sandbox/orders/{reference}/simulate)",
});

export const StateDocumentSchema = z
  .object({
    version: z.literal(STATE_FORMAT_VERSION),
    sandbox_version: z.string(),
    seed: z.number().int(),
    ids: IdsStateSchema,
    clock: ClockStateSchema,
    partners: z.array(PartnerRecordSchema),
    revoked_keys: z.array(RevokedKeySchema),
    quotes: z.array(QuoteSnapshotSchema),
    orders: z.array(SavedOrderSchema),
    evicted_orders: z.number().int().nonnegative(),
    timers: z.array(TimerSchema),
    deliveries: z.array(DeliveryRecordSchema),
    faults: FaultsStateSchema,
    // CONTRACT §22, present only when set (a document without them is as before §22): the
    // market's mode (so a restore continues the same walk) and rate scripts; partners' webhook chaos.
    market: MarketStateSchema.optional(),
    webhook_chaos: z.array(WebhookChaosSchema).max(100_000).optional(),
  })
  .meta({ id: 'StateDocument', description: 'The whole sandbox state (CONTRACT §13)' });
export type StateDocument = z.output<typeof StateDocumentSchema>;

export const StateSummarySchema = z
  .object({
    partners: z.number().int(),
    orders: z.number().int(),
    quotes: z.number().int(),
    deliveries: z.number().int(),
    timers: z.number().int(),
    clock: z.object({ now: z.string(), mode: z.enum(CLOCK_MODES) }),
  })
  .meta({ id: 'StateSummary' });
export type StateSummary = z.output<typeof StateSummarySchema>;

/**
 * The document's lists, each item of which a saved document holds on a line of its own (decision
 * 029): a large state is read and validated item by item, as the lines come.
 */
export const STATE_LISTS = ['partners', 'revoked_keys', 'quotes', 'orders', 'timers', 'deliveries'] as const;
export type StateList = (typeof STATE_LISTS)[number];

/** One item of each list, as `StateDocumentSchema` validates it. */
export const STATE_ITEM_SCHEMAS: { readonly [K in StateList]: z.ZodType<StateDocument[K][number]> } = {
  partners: StateDocumentSchema.shape.partners.element,
  revoked_keys: StateDocumentSchema.shape.revoked_keys.element,
  quotes: StateDocumentSchema.shape.quotes.element,
  orders: StateDocumentSchema.shape.orders.element,
  timers: StateDocumentSchema.shape.timers.element,
  deliveries: StateDocumentSchema.shape.deliveries.element,
};

/** The document with its lists taken as they are (their items validated one by one before). */
export const StateHeadSchema = StateDocumentSchema.extend({
  partners: z.array(z.unknown()),
  revoked_keys: z.array(z.unknown()),
  quotes: z.array(z.unknown()),
  orders: z.array(z.unknown()),
  timers: z.array(z.unknown()),
  deliveries: z.array(z.unknown()),
});
