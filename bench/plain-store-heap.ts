/**
 * Can a store of plain objects hold the default `--max-orders` (200,000, CONTRACT §9) with every
 * event delivered, in the default heap, with a 2× margin? (docs/decisions/028-plain-order-store.md)
 *
 * Builds `--orders` completed orders as plain objects of the stored record's shape (every field
 * its own object or string, a timeline of 15 entry objects, fresh strings per order, as intake
 * and the lifecycle make them), and beside each the five deliveries the webhooks keep for a
 * partner subscribed to every event, one attempt each, kept as the webhooks room keeps a finished
 * delivery (`packBody`: its body deflated; that room's business, not the order store's). Prints
 * heap used after two forced GCs (the orders alone, then with their deliveries), per order, and
 * against `v8.getHeapStatistics().heap_size_limit`.
 *
 * Usage: node --expose-gc --import tsx bench/plain-store-heap.ts [--orders 200000]
 */
import { parseArgs } from 'node:util';
import { getHeapStatistics } from 'node:v8';
import { packBody, type Delivery } from '../src/webhooks/delivery';

const { values: flags } = parseArgs({ options: { orders: { type: 'string', default: '200000' } } });
const n = Number(flags.orders);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');

const EVENTS = ['order.created', 'order.assigned', 'order.fiat_recieved', 'order.asset_released', 'order.settled'] as const;
const T0 = Date.UTC(2026, 0, 1);

/** A fresh flat string of `length` characters from the order's number (ids are flat strings, decision 009). */
const str = (prefix: string, i: number, length: number) => {
  const s = `${prefix}${i.toString(36).padStart(length - prefix.length, '0')}`;
  s.charCodeAt(0); // a rope flattened in place: the GC drops its node
  return s;
};

function order(i: number) {
  const at = T0 + i * 1000;
  const reference = str('ORD', i, 16);
  const leg = (currency: string, amount: number) => ({
    currency,
    amount: amount + (i % 97) / 100,
    network: currency === 'NGN' ? null : 'ethereum',
  });
  const timeline: Array<{ group: string; event: string; details: Record<string, unknown> | null; at: number }> = [];
  const push = (group: string, event: string, details: Record<string, unknown> | null) =>
    timeline.push({ group, event, details, at: at + timeline.length * 500 });
  push('status', 'initiated', null);
  push('webhook', 'order.created', { delivery_id: str('dlv_', i * 5, 20) });
  push('status', 'awaiting_user_payment', null);
  push('payin', 'confirmed', { amount: 100 + (i % 97), tx_reference: str('BNK', i, 14) });
  push('status', 'processing', null);
  push('webhook', 'order.processing', { delivery_id: str('dlv_', i * 5 + 1, 20) });
  push('webhook', 'order.fiat_recieved', { delivery_id: str('dlv_', i * 5 + 2, 20) });
  push('payout', 'sent', { amount: 0.06 + (i % 97) / 1e4, tx_hash: `0x${str('', i, 64)}` });
  push('status', 'completed', null);
  push('webhook', 'order.completed', { delivery_id: str('dlv_', i * 5 + 3, 20) });
  push('status', 'settled', null);
  push('webhook', 'order.settled', { delivery_id: str('dlv_', i * 5 + 4, 20) });
  push('order', 'note', { reason: 'x' });
  push('payin', 'received', { amount: 1, tx_reference: str('BNK', i + 1, 14) });
  push('status', 'settled', null);
  return {
    type: 'onramp',
    from: leg('NGN', 150000),
    to: leg('USDT', 100),
    pricing: { exchange_rate: 1500 + (i % 13), rate_source: 'sandbox' },
    fee: { network_fee: 0.5, protocol_fee: 0.1, partner_fee: 0, vat: 0.01, total: 0.61 + (i % 7) / 100, currency: 'USDT' },
    env: 'test' as const,
    clientId: 'client_bench',
    reference,
    merchant_reference: str('m-', i, 12),
    customer_reference: str('c-', i, 12),
    metadata: null,
    recipient: { kind: 'crypto', address: `0x${str('', i, 40)}`, network: 'ethereum', memo: null },
    payin: { kind: 'fiat', currency: 'NGN', institution_code: '000013', account_number: str('', i, 10), account_name: 'Bench Customer' },
    payinRefs: [str('BNK', i, 14)],
    payinExpiresAt: at + 1_800_000,
    payinPaidAt: at + 1500,
    payout: { refs: [`0x${str('', i, 64)}`], paidAt: at + 3500, amount: 99.39 + (i % 97) / 100, percentage: 100, state: 'sent' },
    refundTarget: { kind: 'fiat', institution_code: '000013', account_number: str('', i + 7, 10), account_name: 'Bench Customer' },
    refund: null,
    timeline,
    status: 'settled',
    context: {
      due: 150000 + (i % 97) / 100,
      precision: 2,
      hold: false,
      paid: 150000 + (i % 97) / 100,
      unconfirmed: 0,
      ratio: 1,
      refundDue: 0,
      refunded: 0,
      outcome: 'success',
      percentage: 100,
      autoPayin: null,
      payinClosesAfter: 1_800_000,
    },
    created_at: at,
    updated_at: at + 7000,
    version: 22,
  };
}

function deliveries(o: ReturnType<typeof order>, i: number): Delivery[] {
  return EVENTS.map(
    (event, k): Delivery => ({
      id: str('dlv_', i * 5 + k, 20),
      client_id: o.clientId,
      environment: o.env,
      order: o.reference,
      event,
      // The body as sent: the event and the order's summary (~700 characters).
      body: JSON.stringify({
        event,
        data: {
          reference: o.reference,
          merchant_reference: o.merchant_reference,
          customer_reference: o.customer_reference,
          type: o.type,
          from: o.from,
          to: o.to,
          pricing: o.pricing,
          fee: o.fee,
          metadata: o.metadata,
          amount_paid: o.context.paid,
          amount_settled: o.payout.amount,
          amount_refunded: 0,
          percentage_settled: 100,
          status: o.status,
          created_at: new Date(o.created_at).toISOString(),
          updated_at: new Date(o.updated_at).toISOString(),
        },
      }),
      urlOverride: null,
      source: 'lifecycle',
      status: 'succeeded',
      attempts: [
        {
          number: 1,
          manual: false,
          url: 'http://127.0.0.1:9/hooks',
          virtual_at: o.created_at + k,
          wall_at: o.created_at + k,
          duration_ms: 1.5,
          http_status: 200,
          error: null,
          response_excerpt: 'ok',
        },
      ],
      automaticAttempts: 1,
      next_attempt_at: null,
      created_at: o.created_at + k,
      inFlight: false,
      timer: null,
    }),
  );
}

function heapUsed(): number {
  gc!();
  gc!();
  return process.memoryUsage().heapUsed;
}

const before = heapUsed();
const orders = new Map<string, ReturnType<typeof order>>();
for (let i = 0; i < n; i++) {
  const o = order(i);
  orders.set(o.reference, o);
}
const ordersOnly = heapUsed() - before;
const log = new Map<string, Delivery>();
const answers = new Map<string, string>();
let i = 0;
for (const o of orders.values()) {
  for (const d of deliveries(o, i++)) {
    packBody(d, answers);
    log.set(d.id, d);
  }
}
const used = heapUsed() - before;
const limit = getHeapStatistics().heap_size_limit;
const MiB = 2 ** 20;
process.stdout.write(
  `${JSON.stringify({
    orders: n,
    ordersMiB: Math.round(ordersOnly / MiB),
    withDeliveriesMiB: Math.round(used / MiB),
    orderBytesPerOrder: Math.round(ordersOnly / n),
    bytesPerOrder: Math.round(used / n),
    heapLimitMiB: Math.round(limit / MiB),
    margin: Math.round((limit / used) * 100) / 100,
    fitsTwice: 2 * used <= limit,
    kept: orders.size + log.size,
  })}\n`,
);
