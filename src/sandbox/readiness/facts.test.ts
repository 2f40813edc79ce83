import { describe, expect, it } from 'vitest';
import { AUTH_MESSAGES, SIGNATURE_MISTAKES } from '../../auth';
import type { RawRecord } from '../../http/inspector/request-log.record';
import type { Delivery } from '../../webhooks';
import { classifyAuthFailure, deliveryFact, requestFact } from './facts';

// CONTRACT §21: what a run keeps of each /v1 request, read from the inspector's record.
const raw = (over: Partial<RawRecord>): RawRecord => ({
  wallMs: 10_000,
  virtualMs: 0,
  method: 'GET',
  path: '/v1/networks',
  status: 200,
  ms: 4,
  auth: 'secret',
  headers: { authorization: 'Bearer sk_test_****abcd' },
  ...over,
});
const look = {
  quoteType: (id: string) => (id === 'qt_1' ? ('offramp' as const) : undefined),
  existing: (m: string) => (m === 'm-1' ? 'ORD1' : undefined),
};

describe('request facts', () => {
  it('classifies refusals by the diagnosis auth records in the message', () => {
    expect(classifyAuthFailure(401, AUTH_MESSAGES.secondsTimestamp)).toBe('seconds');
    expect(classifyAuthFailure(401, `${AUTH_MESSAGES.badSignature}: ${SIGNATURE_MISTAKES.seconds}`)).toBe('seconds');
    expect(classifyAuthFailure(401, `${AUTH_MESSAGES.badSignature}: ${SIGNATURE_MISTAKES.reserialised}`)).toBe('raw_body');
    expect(classifyAuthFailure(401, `${AUTH_MESSAGES.badSignature}: ${SIGNATURE_MISTAKES.secretKey}`)).toBe('signature');
    expect(classifyAuthFailure(401, AUTH_MESSAGES.missingSignature)).toBe('signature');
    expect(classifyAuthFailure(401, "svc-timestamp is 400 s in the past; allowed skew is ±300 s of the server's wall clock")).toBe(
      'signature',
    );
    expect(classifyAuthFailure(403, AUTH_MESSAGES.publicOnSecretRoute)).toBe('public_on_secret');
    expect(classifyAuthFailure(401, AUTH_MESSAGES.unknownKey)).toBe('key');
    expect(classifyAuthFailure(200, undefined)).toBeUndefined();
  });

  it('reads the key, start, Retry-After and kind', () => {
    const f = requestFact(
      'req_1',
      raw({
        status: 429,
        code: 'E_RATE_LIMITED',
        responseHeaders: { 'retry-after': '2' },
        headers: { authorization: 'Bearer pk_live_****wxyz' },
      }),
      look,
    );
    expect(f).toMatchObject({
      id: 'req_1',
      start: 9_996,
      end: 10_000,
      kind: 'networks',
      keyKind: 'pk',
      env: 'live',
      retryAfterMs: 2000,
      key: 'Bearer pk_live_****wxyz',
    });
  });

  it('reads a create: merchant reference, quote type, recipient, the order, an expired quote, the order behind a 409', () => {
    const body = JSON.stringify({
      quote_id: 'qt_1',
      merchant_reference: 'm-1',
      recipient: { account_number: '0123', account_name: 'ADA OBI' },
    });
    const created = requestFact(
      'req_2',
      raw({
        method: 'POST',
        path: '/v1/orders',
        requestBody: body,
        responseBody: JSON.stringify({ status: true, data: { reference: 'ORD9', type: 'offramp' } }),
      }),
      look,
    );
    expect(created).toMatchObject({
      kind: 'create',
      merchantReference: 'm-1',
      quoteId: 'qt_1',
      orderType: 'offramp',
      accountNumber: '0123',
      accountName: 'ADA OBI',
      reference: 'ORD9',
      hasBody: true,
    });
    const conflict = requestFact('req_3', raw({ method: 'POST', path: '/v1/orders', status: 409, requestBody: body }), look);
    expect(conflict).toMatchObject({ orderType: 'offramp', reference: 'ORD1' });
    const expired = requestFact(
      'req_4',
      raw({
        method: 'POST',
        path: '/v1/orders',
        status: 400,
        message: 'quote_id: quote expired at 2026-01-01T00:00:00.000Z; create a new quote',
        requestBody: body,
      }),
      look,
    );
    expect(expired.expiredQuote).toBe(true);
  });

  it('gives the same fingerprint to the same request sent again, another to a changed one', () => {
    const a = requestFact('req_5', raw({ method: 'POST', path: '/v1/orders', requestBody: '{"a":1}' }), look);
    const b = requestFact('req_6', raw({ method: 'POST', path: '/v1/orders', requestBody: '{"a":1}' }), look);
    const c = requestFact('req_7', raw({ method: 'POST', path: '/v1/orders', requestBody: '{"a":2}' }), look);
    expect(a.fingerprint).toBe(b.fingerprint);
    expect(a.fingerprint).not.toBe(c.fingerprint);
  });

  it('reads an order path and an account lookup, and survives a body cut or a stray %', () => {
    expect(requestFact('r', raw({ path: '/v1/orders/ORD%201?include=timeline' }), look)).toMatchObject({
      kind: 'get_order',
      reference: 'ORD 1',
    });
    expect(requestFact('r', raw({ path: '/v1/orders/%E0%A4' }), look)).toMatchObject({ kind: 'get_order', reference: '%E0%A4' });
    expect(
      requestFact('r', raw({ path: '/v1/orders/quote', method: 'POST', requestBody: '{"from":', responseBody: '{"status":true' }), look),
    ).toMatchObject({ kind: 'quote' });
    expect(
      requestFact(
        'r',
        raw({
          path: '/v1/account-lookup?account_number=0123&bank_code=058',
          responseBody: JSON.stringify({ data: { account_name: 'ADA OBI', account_number: '0123' } }),
        }),
        look,
      ),
    ).toMatchObject({ kind: 'lookup', accountNumber: '0123', accountName: 'ADA OBI' });
  });

  it('files a path as the router matched it: one trailing slash and any case (a read of /v1/orders/{ref}/ is a read)', () => {
    // Such reads were answered 200 and filed as `other`: a client polling every 100 ms was ready.
    expect(requestFact('r', raw({ path: '/v1/orders/ORDAbC1/' }), look)).toMatchObject({ kind: 'get_order', reference: 'ORDAbC1' });
    expect(requestFact('r', raw({ path: '/V1/Orders/ORDAbC1?x=1' }), look)).toMatchObject({ kind: 'get_order', reference: 'ORDAbC1' });
    expect(requestFact('r', raw({ path: '/v1/orders/quote/', method: 'POST' }), look)).toMatchObject({ kind: 'quote' });
    expect(requestFact('r', raw({ path: '/v1/orders/', method: 'POST' }), look)).toMatchObject({ kind: 'create' });
    expect(requestFact('r', raw({ path: '/v1/networks/' }), look)).toMatchObject({ kind: 'networks' });
    expect(requestFact('r', raw({ path: '/v1/orders//' }), look)).toMatchObject({ kind: 'other' });
  });

  it('keeps what webhook chaos did to a delivery (CONTRACT §22): its marks and the delivery a duplicate repeats', () => {
    const attempt = {
      number: 1,
      manual: false,
      url: 'http://127.0.0.1:1/h',
      virtual_at: 0,
      wall_at: 0,
      duration_ms: 3,
      http_status: 200,
      error: null,
      response_excerpt: null,
    };
    const d = {
      id: 'dlv_2',
      client_id: 'ptr',
      environment: 'test',
      order: 'ORD1',
      event: 'order.created',
      body: '{}',
      urlOverride: null,
      source: 'lifecycle',
      status: 'succeeded',
      attempts: [attempt],
      automaticAttempts: 1,
      next_attempt_at: null,
      created_at: 0,
      inFlight: false,
      timer: null,
    } as unknown as Delivery;
    expect(deliveryFact(d)).not.toHaveProperty('chaos');
    expect(deliveryFact({ ...d, chaos: ['duplicate', 'delayed'], duplicate_of: 'dlv_1' })).toMatchObject({
      chaos: ['duplicate', 'delayed'],
      duplicateOf: 'dlv_1',
      attempts: [{ status: 200, ms: 3, error: null }],
    });
  });
});
