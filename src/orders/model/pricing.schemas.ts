import * as z from 'zod';
import { ORDER_TYPES, type OrderType } from './order.vocabulary';

/** Spec §2.2 / §4.1 order types. */
export const OrderTypeSchema = z.enum(ORDER_TYPES).meta({ id: 'OrderType', example: 'onramp' });
export type { OrderType };

/** Spec §2.2 OrderLeg: `network` on crypto legs only. */
export const PricedLegSchema = z
  .object({
    currency: z.string().meta({ example: 'USDT' }),
    network: z.string().optional().meta({ example: 'base-sepolia' }),
    amount: z.number().meta({ example: 100 }),
  })
  .meta({
    id: 'OrderLeg',
    description: 'Spec §2.2: `network` on crypto legs only',
    example: { currency: 'USDT', network: 'base-sepolia', amount: 100 },
  });
export type PricedLeg = z.output<typeof PricedLegSchema>;

/** Spec §2.2 OrderPricing. */
export const PricingSchema = z
  .object({ base_currency: z.string(), quote_currency: z.string(), exchange_rate: z.number() })
  .meta({ id: 'OrderPricing', example: { base_currency: 'USDT', quote_currency: 'NGN', exchange_rate: 1580.5 } });
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
  .meta({
    id: 'OrderFee',
    description: 'Spec §2.2; `total` is the sum of the parts, in `currency`',
    example: { currency: 'NGN', network_fee: 150, protocol_fee: 250, partner_fee: 0, vat: 30, total: 430, fee_in_rate: false },
  });
export type Fee = z.output<typeof FeeSchema>;
