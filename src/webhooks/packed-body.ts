import { deflateRawSync, inflateRawSync } from 'node:zlib';

/**
 * A finished webhook delivery's body, raw-deflated with a preset dictionary and kept as a
 * one-byte (latin1) string: ~100 bytes for a ~650-byte body, and no Buffer per delivery
 * (docs/decisions/007-packed-delivery-bodies.md). `unpack()` gives back the exact text.
 * @example PackedBody.pack(body).unpack() === body
 */
export class PackedBody {
  private constructor(private readonly deflated: string) {}

  /** Packs the JSON text of a body. */
  static pack(body: string): PackedBody {
    return new PackedBody(deflateRawSync(body, { dictionary: DICTIONARY }).toString('latin1'));
  }

  /** The text that was packed, exactly. */
  unpack(): string {
    return inflateRawSync(Buffer.from(this.deflated, 'latin1'), { dictionary: DICTIONARY }).toString('utf8');
  }

  /** Bytes the packed body holds. */
  get size(): number {
    return this.deflated.length;
  }
}

/**
 * A preset dictionary for webhook bodies: the keys and common values of `{event, data: <order
 * summary>}`, so a ~650-byte body deflates to ~100 (issue 12: memory with every event delivered).
 * Packed bodies live only in memory (a snapshot keeps the text), so it may change between versions.
 */
const DICTIONARY = Buffer.from(
  '{"event":"order.asset_released","data":{"reference":"ORD","merchant_reference":null,"customer_reference":"","type":"onramp",' +
    '"from":{"currency":"NGN","network":"base-sepolia","amount":},"to":{"currency":"USDT","network":"base-sepolia","amount":},' +
    '"pricing":{"base_currency":"USDT","quote_currency":"NGN","exchange_rate":},"fee":{"currency":"NGN","network_fee":,"protocol_fee":,' +
    '"partner_fee":0,"vat":,"total":,"fee_in_rate":false},"metadata":null,"amount_paid":0,"amount_settled":0,"amount_refunded":0,' +
    '"percentage_settled":0,"status":"awaiting_user_payment","created_at":"2026-01-15T12:00:00.000Z","updated_at":"2026-01-15T12:00:00.000Z"}}',
);
