import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WEBHOOK_EVENTS } from '../../src/shared/events';
import { createResponseChecker } from '../support/openapi';
import { advance, createOrder } from '../support/orders';
import { startReceiver } from '../support/receiver';
import { startTestServer, type TestServer } from '../support/server';

// CONTRACT §10: GET /openapi.json, generated from the zod schemas, validates and covers everything.
let s: TestServer;
let doc: any;
beforeAll(async () => {
  s = await startTestServer();
  const res = await fetch(`${s.url}/openapi.json`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  doc = await res.json();
});
afterAll(() => s.close());

describe('GET /openapi.json (CONTRACT §10)', () => {
  it('is a valid OpenAPI 3.1 document (swagger-parser) of version 2.0.0', async () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('2.0.0');
    await SwaggerParser.validate(structuredClone(doc));
  });

  it('covers every route the app serves, /v1 and /sandbox (tag sandbox)', () => {
    const ops = Object.entries(doc.paths).flatMap(([path, item]: [string, any]) =>
      Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`),
    );
    for (const expected of [
      'GET /health',
      'GET /v1/health',
      'GET /v1/networks',
      'GET /v1/networks/{identifier}',
      'GET /v1/networks/{identifier}/crypto-currencies',
      'GET /v1/crypto-currencies',
      'GET /v1/crypto-currencies/{identifier}',
      'GET /v1/crypto-currencies/{identifier}/networks',
      'GET /v1/fiat-currencies',
      'GET /v1/institutions',
      'GET /v1/account-lookup',
      'GET /v1/market-rates/{pair}',
      'GET /v1/exchange-rate',
      'POST /v1/orders/quote',
      'POST /v1/orders',
      'GET /v1/orders',
      'GET /v1/orders/{reference}',
      'PATCH /v1/orders/{reference}/cancel',
      'POST /v1/orders/{reference}/fulfill',
      'POST /sandbox/partners',
      'GET /sandbox/partners',
      'GET /sandbox/partners/{client_id}',
      'PATCH /sandbox/partners/{client_id}',
      'POST /sandbox/partners/{client_id}/keys',
      'GET /sandbox/clock',
      'POST /sandbox/clock',
      'POST /sandbox/clock/advance',
      'GET /sandbox/orders/{reference}',
      'POST /sandbox/orders/{reference}/payin',
      'POST /sandbox/orders/{reference}/payout',
      'POST /sandbox/orders/{reference}/expire',
      'GET /sandbox/webhooks/deliveries',
      'GET /sandbox/webhooks/deliveries/{id}',
      'POST /sandbox/webhooks/deliveries/{id}/retry',
      'POST /sandbox/webhooks/send',
      'POST /sandbox/reset',
      'GET /sandbox/dashboard',
      'GET /sandbox/orders',
      'POST /sandbox/orders',
      'GET /sandbox/orders/{reference}/lifecycle',
      'POST /sandbox/orders/{reference}/cancel',
      'POST /sandbox/orders/{reference}/fulfil',
      'GET /sandbox/events',
      'GET /sandbox/dashboard/assets/{name}',
      'GET /',
      'POST /sandbox/readiness/runs',
      'GET /sandbox/readiness/runs',
      'GET /sandbox/readiness/runs/{id}',
      'POST /sandbox/readiness/runs/{id}/finish',
    ]) {
      expect(ops).toContain(expected);
    }
    for (const [path, item] of Object.entries(doc.paths) as Array<[string, any]>) {
      for (const op of Object.values(item) as any[]) {
        expect(op.tags, path).toEqual([path.startsWith('/sandbox') ? 'sandbox' : expect.any(String)]);
        // GET / is the one redirect (to the dashboard); opening a readiness run creates one (CONTRACT §21).
        expect(op.responses[path === '/' ? '302' : op.operationId === 'openReadinessRun' ? '201' : '200'], path).toBeDefined();
      }
    }
  });

  it('documents the error statuses of each route, in the error envelope', () => {
    const create = doc.paths['/v1/orders'].post;
    for (const status of ['400', '401', '403', '409', '413', '415', '422', '429']) expect(Object.keys(create.responses)).toContain(status);
    // Errors refer to named responses (CONTRACT §19: no inline envelope), which carry their headers.
    expect(create.responses['422'].$ref).toBe('#/components/responses/ValidationError');
    expect(doc.components.responses.ValidationError.content['application/json'].schema.$ref).toBe('#/components/schemas/Error');
    expect(create.responses['401'].$ref).toBe('#/components/responses/Unauthorized');
    expect(doc.components.responses.Unauthorized.content['application/json'].schema.$ref).toBe('#/components/schemas/AuthError');
    expect(doc.components.schemas.AuthError.oneOf).toHaveLength(2);
  });

  it("documents on every operation what Node's parser and the body limit answer, whatever the route (400, 408, 413, 431)", () => {
    // A 17,000-character query on GET /sandbox/orders was a 431 no operation listed.
    const refs = { '400': 'BadRequest', '408': 'RequestTimeout', '413': 'PayloadTooLarge', '431': 'HeadersTooLarge' };
    for (const [path, item] of Object.entries(doc.paths) as Array<[string, Record<string, any>]>) {
      for (const [method, op] of Object.entries(item)) {
        for (const [status, name] of Object.entries(refs)) {
          expect(op.responses[status]?.$ref, `${method.toUpperCase()} ${path} ${status}`).toBe(`#/components/responses/${name}`);
        }
      }
    }
  });

  it('documents both security schemes: public key, and secret key with HMAC headers', () => {
    const schemes = doc.components.securitySchemes;
    expect(schemes.clientId).toMatchObject({ type: 'apiKey', in: 'header', name: 'svc-client-id' });
    expect(schemes.signature).toMatchObject({ type: 'apiKey', in: 'header', name: 'svc-signature' });
    expect(schemes.timestamp).toMatchObject({ type: 'apiKey', in: 'header', name: 'svc-timestamp' });
    expect(doc.paths['/v1/networks'].get.security).toEqual([
      { bearerKey: [], clientId: [] },
      { bearerKey: [], clientId: [], timestamp: [], signature: [] },
    ]);
    expect(doc.paths['/v1/orders'].post.security).toEqual([{ bearerKey: [], clientId: [], timestamp: [], signature: [] }]);
  });

  it('has one webhook per spec §6.1 event, with its payload', () => {
    expect(Object.keys(doc.webhooks).sort()).toEqual([...WEBHOOK_EVENTS].sort());
    const ref = doc.webhooks['order.created'].post.requestBody.content['application/json'].schema.$ref as string;
    const payload = doc.components.schemas[ref.split('/').pop()!];
    expect(payload.properties.event.enum).toEqual(['order.created']);
    // spec §6.2: the order-created payload carries status awaiting_user_payment
    expect(payload.properties.data.$ref).toBe('#/components/schemas/OrderCreatedSummary');
    expect(doc.components.schemas.OrderCreatedSummary.properties.status.enum).toEqual(['awaiting_user_payment']);
    const settled = doc.webhooks['order.settled'].post.requestBody.content['application/json'].schema.$ref as string;
    expect(doc.components.schemas[settled.split('/').pop()!].properties.data.$ref).toBe('#/components/schemas/OrderSummary');
  });

  it('describes every webhook body the sandbox sends along a lifecycle', async () => {
    const receiver = await startReceiver();
    try {
      await s.control('PATCH', `/sandbox/partners/${s.demo.clientId}`, { webhook_url: receiver.url });
      for (const type of ['onramp', 'offramp', 'swap'] as const) {
        const order = await createOrder(s, type);
        await s.control('POST', `/sandbox/orders/${order.reference}/payin`, {});
        await advance(s, '2h');
      }
      const cancelled = await createOrder(s, 'onramp');
      await s.signed('PATCH', `/v1/orders/${cancelled.reference}/cancel`, { reason: 'x' });
      await advance(s, '1h');
      const checker = await s.openapi();
      const events = new Set(receiver.received.map((r) => r.body.event));
      expect(events.size).toBeGreaterThanOrEqual(8);
      for (const r of receiver.received) checker.checkWebhook(r.body);
    } finally {
      await s.control('PATCH', `/sandbox/partners/${s.demo.clientId}`, { webhook_url: null });
      await receiver.close();
    }
  });

  it('catches a response that does not match (the checker the HTTP tests run is not a no-op)', () => {
    const checker = createResponseChecker(doc);
    const good = { status: true, message: 'Networks retrieved', data: [] };
    expect(() => checker.check('GET', '/v1/networks', 200, 'application/json', JSON.stringify(good))).not.toThrow();
    expect(() => checker.check('GET', '/v1/networks', 200, 'application/json', JSON.stringify({ ...good, data: [{ id: 'x' }] }))).toThrow(
      /does not match/,
    );
    expect(() => checker.check('GET', '/v1/networks', 418, 'application/json', '{}')).toThrow(/not documented/);
    expect(() =>
      checker.check('GET', '/v1/nope', 404, 'application/json', JSON.stringify({ status: false, code: 'E_NOTFOUND', message: 'x' })),
    ).not.toThrow();
    expect(() =>
      checker.check('GET', '/v1/nope', 404, 'application/json', JSON.stringify({ status: false, code: 'E_NOPE', message: 'x' })),
    ).toThrow();
    expect(() => checker.checkWebhook({ event: 'order.created', data: { reference: 1 } })).toThrow(/does not match/);
  });

  it('is served without authentication, also when an admin token is set', async () => {
    const locked = await startTestServer({ adminToken: 'sekret-token' });
    try {
      expect((await fetch(`${locked.url}/openapi.json`)).status).toBe(200);
    } finally {
      await locked.close();
    }
  });
});
