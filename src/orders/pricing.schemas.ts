import { z } from 'zod';
import { ORDER_TYPES, type OrderType } from './order.vocabulary';

/** Spec §2.2 / §4.1 order types. */
export const OrderTypeSchema = z.enum(ORDER_TYPES).meta({ id: 'OrderType' });
export type { OrderType };

/** Spec §2.2 OrderLeg: `network` on crypto legs only. */
export const PricedLegSchema = z
  .object({ currency: z.string(), network: z.string().optional(), amount: z.number() })
  .meta({ id: 'OrderLeg' });
export type PricedLeg = z.output<typeof PricedLegSchema>;

/** Spec §2.2 OrderPricing. */
export const PricingSchema = z
  .object({ base_currency: z.string(), quote_currency: z.string(), exchange_rate: z.number() })
  .meta({ id: 'OrderPricing' });
export type Pricing = z.output<typeof PricingSchema>;

/** Spec §2.2 OrderFee. */
export const FeeSchema = z
  .object({
    currency: z.string(),
    network_fee: z.number(),
    protocol_fee: z.number(),
    partner_fee: z.number(),
    vat: z.number(),
    total: z.number(),
    fee_in_rate: z.boolean(),
  })
  .meta({ id: 'OrderFee' });
export type Fee = z.output<typeof FeeSchema>;
