import type { TimerTag } from '../clock';
import { price } from './pricing';
import { lookupMagicAmount } from '../reference';
import { unused } from '../shared/ids';
import { checkLegs } from './order.legs';
import { requireKyb, type Caller, type OrdersCore } from './order.core';
import type { Quote } from './order.responses';
import type { QuoteBody } from './model';
import type { QuoteRecord } from './model';
import { toQuoteView } from './order.view';

/** An hour after it expires a quote is forgotten; until then, using it is a clear 400. */
const FORGET_AFTER_MS = 3_600_000;

/** `POST /v1/orders/quote`: priced legs remembered under a quote id for `quoteTtlMs`. */
export function createQuotes(core: OrdersCore, quoteTtlMs: number) {
  const { clock, ids, store } = core;

  function quote(caller: Caller, input: QuoteBody): Quote {
    requireKyb(caller.partner);
    const type = checkLegs(core, caller.env, input.from, input.to);
    const priced = price(core.ref, caller.env, type, input.from, input.to, input.partner_fee ?? 0);
    const now = clock.now();
    const q: QuoteRecord = {
      ...priced,
      quote_id: unused(
        () => ids.id('qt_'),
        (id) => store.quotes.has(id),
      ),
      env: caller.env,
      clientId: caller.partner.client_id,
      partnerFeePercent: input.partner_fee ?? 0,
      magic: lookupMagicAmount(input.from.amount ?? input.to.amount),
      created_at: now,
      expires_at: now + quoteTtlMs,
      used: false,
    };
    store.quotes.set(q.quote_id, q);
    forgetAt(q.quote_id, q.expires_at + FORGET_AFTER_MS);
    return toQuoteView(q);
  }

  function forgetAt(quoteId: string, at: number) {
    clock.setTimer(at, () => store.quotes.delete(quoteId), `quote ${quoteId}: forget`, { kind: 'quote_forget', quote_id: quoteId });
  }

  /** Re-creates a quote's timer from a snapshot tag (CONTRACT §13); false when not a quote's. */
  function reviveTimer(tag: TimerTag, due: number): boolean {
    if (tag.kind !== 'quote_forget' || typeof tag.quote_id !== 'string') return false;
    forgetAt(tag.quote_id, due);
    return true;
  }

  /**
   * Ends a quote's lifetime now (CONTRACT §21: a readiness probe ends one quote of the partner's
   * early, so its create is refused as an expired quote, spec §2.5). False when no such quote is
   * kept or it is already used or expired.
   */
  function endQuote(quoteId: string): boolean {
    const q = store.quotes.get(quoteId);
    const now = clock.now();
    if (!q || q.used || now > q.expires_at) return false;
    q.expires_at = now - 1;
    return true;
  }

  return { quote, reviveTimer, endQuote };
}
