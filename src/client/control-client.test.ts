import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import * as clockRoutes from '../http/control/clock.routes';
import * as exportRoutes from '../http/control/exports.routes';
import * as inspectorRoutes from '../http/control/inspector.routes';
import * as listenRoutes from '../http/control/listen.routes';
import * as rateRoutes from '../http/control/rates.routes';
import * as webhookChaosRoutes from '../http/control/webhook-chaos.routes';
import * as orderRoutes from '../http/control/orders.routes';
import * as partnerRoutes from '../http/control/partners.routes';
import * as resetRoutes from '../http/control/reset.routes';
import * as webhookRoutes from '../http/control/webhooks.routes';
import type { ClockView } from '../clock';
import type { OrderDetail } from '../orders';
import { startServer, type RunningSandbox } from '../sandbox/server';
import * as stateRoutes from '../sandbox/state/state.routes';
import * as readinessRoutes from '../sandbox/readiness/readiness.routes';
import type { StateDocument } from '../sandbox/state/state.schema';
import type { PageMeta } from '../shared/envelope';
import type { DeliveryView } from '../webhooks';
import {
  CONTROL_ROUTES,
  createControlClient,
  type ControlBody,
  type ControlClient,
  type ControlData,
  type ControlFetch,
  type ControlOperation,
  type ControlParams,
  type ControlQuery,
  type ControlResult,
} from './control-client';
import { SandboxError } from './sandbox-error';

const TOKEN = 'control-client-test-token';
let running: RunningSandbox;
let control: ControlClient;
beforeAll(async () => {
  running = await startServer({
    port: 0,
    host: '127.0.0.1',
    logLevel: 'silent',
    clockMode: 'manual',
    clockStart: Date.UTC(2026, 0, 15),
    adminToken: TOKEN,
  });
  control = createControlClient({ baseUrl: running.url, adminToken: TOKEN });
});
afterAll(() => running?.close());

/** A fetch that records what it is asked and answers `answer`. */
function recording(answer: { status: number; text: string }) {
  const seen: Array<{ url: string; init: Parameters<ControlFetch>[1] }> = [];
  const fetch: ControlFetch = async (url, init) => {
    seen.push({ url, init });
    return { status: answer.status, text: async () => answer.text };
  };
  return { seen, fetch };
}

const ok = (data: unknown, meta?: unknown) => ({
  status: 200,
  text: JSON.stringify({ status: true, message: 'ok', data, ...(meta ? { meta } : {}) }),
});

describe('the control client (issue 17 part 4)', () => {
  it('has one entry per /sandbox JSON route, saying what the exported spec says (method, path, paging)', () => {
    const modules = [
      partnerRoutes,
      clockRoutes,
      orderRoutes,
      webhookRoutes,
      inspectorRoutes,
      exportRoutes,
      listenRoutes,
      rateRoutes,
      webhookChaosRoutes,
      stateRoutes,
      readinessRoutes,
      resetRoutes,
    ];
    const specs = modules
      .flatMap((m) => Object.values(m))
      .filter((v): v is { operationId: string; method: string; path: string; paged?: boolean; media?: readonly string[] } => {
        const spec = v as { operationId?: unknown; path?: unknown };
        return (
          typeof spec === 'object' && spec !== null && typeof spec.operationId === 'string' && String(spec.path).startsWith('/sandbox/')
        );
      });
    const kind = (s: (typeof specs)[number]) => (s.paged ? ['paged'] : s.media ? ['document'] : []);
    const fromSpecs = Object.fromEntries(specs.map((s) => [s.operationId, [s.method, s.path, ...kind(s)]]));
    expect(CONTROL_ROUTES).toEqual(fromSpecs);
  });

  it('covers every JSON operation under /sandbox of the OpenAPI document, and nothing else', async () => {
    type Operation = { operationId: string; responses: Record<string, { content?: Record<string, unknown> }> };
    const doc = (await (await fetch(`${running.url}/openapi.json`)).json()) as { paths: Record<string, Record<string, Operation>> };
    const documented: Record<string, [string, string]> = {};
    for (const [path, item] of Object.entries(doc.paths)) {
      if (!path.startsWith('/sandbox/')) continue;
      for (const [method, op] of Object.entries(item)) {
        // The dashboard's page, assets and event stream are not JSON: not the control client's.
        if ((op.responses['200'] ?? op.responses['201'])?.content?.['application/json'])
          documented[op.operationId] = [method.toUpperCase(), path];
      }
    }
    expect(Object.fromEntries(Object.entries(CONTROL_ROUTES).map(([id, [method, path]]) => [id, [method, path]]))).toEqual(documented);
  });

  it('sends path params encoded, the query as strings, the body as JSON and the admin token', async () => {
    const { seen, fetch } = recording(ok({}));
    const client = createControlClient({ baseUrl: 'http://sandbox.test:4010/', adminToken: 'tok', fetch });
    await client.simulatePayin({ params: { reference: 'a/b c' }, body: { amount: 12.5, confirmed: false } });
    await client.listDeliveries({ query: { order: 'ORD-1', page: 2, per_page: 10, event: undefined } });
    await client.call('expireOrder', { params: { reference: 'ORD-2' } });
    expect(seen).toEqual([
      {
        url: 'http://sandbox.test:4010/sandbox/orders/a%2Fb%20c/payin',
        init: {
          method: 'POST',
          headers: { accept: 'application/json', 'content-type': 'application/json', authorization: 'Bearer tok' },
          body: '{"amount":12.5,"confirmed":false}',
        },
      },
      {
        url: 'http://sandbox.test:4010/sandbox/webhooks/deliveries?order=ORD-1&page=2&per_page=10',
        init: { method: 'GET', headers: { accept: 'application/json', authorization: 'Bearer tok' } },
      },
      {
        url: 'http://sandbox.test:4010/sandbox/orders/ORD-2/expire',
        init: { method: 'POST', headers: { accept: 'application/json', authorization: 'Bearer tok' } },
      },
    ]);
  });

  it('sends no Authorization header without a token, and refuses a request missing a path parameter', async () => {
    const { seen, fetch } = recording(ok({}));
    const client = createControlClient({ baseUrl: 'http://sandbox.test', fetch });
    await client.getClock();
    expect(seen[0]!.init.headers).toEqual({ accept: 'application/json' });
    await expect(client.call('getPartner', { params: {} as { client_id: string } })).rejects.toThrow(
      'getPartner: params.client_id is required',
    );
    expect(seen).toHaveLength(1);
  });

  it('refuses an empty, "." or ".." path parameter before any request (fetch would resolve it to another route)', async () => {
    const { seen, fetch } = recording(ok({}));
    const client = createControlClient({ baseUrl: 'http://sandbox.test', fetch });
    for (const id of ['', '.', '..']) {
      await expect(client.removeFault({ params: { id } })).rejects.toThrow(`removeFault: params.id must not be ${JSON.stringify(id)}`);
    }
    await expect(client.call('simulatePayin', { params: { reference: '..' } })).rejects.toThrow(TypeError);
    expect(seen).toEqual([]);
    // A dot inside a value is no dot segment: sent as it is.
    await client.removeFault({ params: { id: '.flt..1' } });
    expect(seen.map((r) => r.url)).toEqual(['http://sandbox.test/sandbox/faults/.flt..1']);
  });

  it('resolves with data, and with data and meta on a paged route', async () => {
    const meta = { total: 1, per_page: 50, current_page: 1, last_page: 1 };
    const one = createControlClient({ baseUrl: 'http://sandbox.test', fetch: recording(ok({ removed: 3 })).fetch });
    expect(await one.clearFaults()).toEqual({ removed: 3 });
    const paged = createControlClient({ baseUrl: 'http://sandbox.test', fetch: recording(ok([{ id: 'd1' }], meta)).fetch });
    expect(await paged.listDeliveries()).toEqual({ data: [{ id: 'd1' }], meta });
  });

  it('resolves with the document itself on a route that answers one as it is (the exports), and throws on an error envelope', async () => {
    const har = { log: { version: '1.2', creator: { name: 'ramp-sandbox', version: '0' }, entries: [] } };
    const { seen, fetch } = recording({ status: 200, text: JSON.stringify(har) });
    expect(await createControlClient({ baseUrl: 'http://sandbox.test', fetch }).exportRequestsHar({ query: { status: '4xx' } })).toEqual(
      har,
    );
    expect(seen[0]!.url).toBe('http://sandbox.test/sandbox/requests.har?status=4xx');
    const refusal = { status: 404, text: JSON.stringify({ status: false, code: 'E_NOTFOUND', message: 'Partner ptr_x not found' }) };
    const refused = createControlClient({ baseUrl: 'http://sandbox.test', fetch: recording(refusal).fetch });
    await expect(refused.exportPostmanCollection({ query: { client_id: 'ptr_x' } })).rejects.toMatchObject({
      name: 'SandboxError',
      status: 404,
      route: 'GET /sandbox/postman.json',
    });
  });

  it('throws a plain Error naming the route when the answer is not an envelope', async () => {
    const client = createControlClient({
      baseUrl: 'http://sandbox.test',
      fetch: recording({ status: 502, text: '<html>Bad gateway</html>' }).fetch,
    });
    const error = await client.getClock().catch((e: unknown) => e);
    expect(error).not.toBeInstanceOf(SandboxError);
    expect((error as Error).message).toBe('GET /sandbox/clock: unexpected answer 502 <html>Bad gateway</html>');
  });

  it('against a sandbox: answers what the routes answer, and one SandboxError with status, code, message and route on an error', async () => {
    const partner = await control.createPartner({ body: { name: 'Control client' } });
    expect(partner.keys.test.secret_key).toMatch(/^sk_test_/);
    expect((await control.getPartner({ params: { client_id: partner.client_id } })).keys.test.secret_key).toMatch(/\*{4}/);
    expect((await control.advanceClock({ body: { duration: '1h' } })).clock.now).toBe('2026-01-15T01:00:00.000Z');
    expect(await control.listDeliveries({ query: { per_page: 5 } })).toEqual({
      data: [],
      meta: { total: 0, per_page: 5, current_page: 1, last_page: 1 },
    });

    const missing = await control.simulatePayin({ params: { reference: 'ORD-NOPE' } }).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(SandboxError);
    expect(missing).toMatchObject({ status: 404, code: 'E_NOTFOUND', route: 'POST /sandbox/orders/ORD-NOPE/payin' });
    expect((missing as SandboxError).message).toMatch(/ORD-NOPE/);

    // What the route refuses, the client sends as given (the server is the one judge).
    const invalid = await control.configureClock({ body: { speed: -1 } }).catch((e: unknown) => e);
    expect(invalid).toMatchObject({ status: 422, code: 'E_VALIDATION_ERROR', message: expect.stringMatching(/^speed: /) });

    const anonymous = createControlClient({ baseUrl: running.url });
    await expect(anonymous.getClock()).rejects.toMatchObject({
      name: 'SandboxError',
      status: 401,
      code: 'E_UNAUTHORIZED',
      route: 'GET /sandbox/clock',
    });
  });

  it('round-trips the state document (GET then PUT /sandbox/state) and resets', async () => {
    const doc = await control.getState();
    const summary = await control.putState({ body: doc });
    expect(summary.partners).toBeGreaterThanOrEqual(2);
    const reset = await control.reset();
    expect(reset.clock.now).toBe('2026-01-15T00:00:00.000Z');
  });

  it('is typed by operation from the route specs', () => {
    expectTypeOf<ControlOperation>().toEqualTypeOf<keyof typeof CONTROL_ROUTES>();
    expectTypeOf<ControlData<'getClock'>>().toEqualTypeOf<ClockView>();
    expectTypeOf<ControlResult<'sandboxGetOrder'>>().toEqualTypeOf<OrderDetail>();
    expectTypeOf<ControlResult<'listDeliveries'>>().toEqualTypeOf<{ data: DeliveryView[]; meta: PageMeta }>();
    expectTypeOf<ControlResult<'getState'>>().toEqualTypeOf<StateDocument>();
    expectTypeOf<ControlParams<'simulatePayin'>>().toEqualTypeOf<{ reference: string }>();
    expectTypeOf<ControlParams<'getClock'>>().toEqualTypeOf<undefined>();
    expectTypeOf<ControlBody<'expireOrder'>>().toEqualTypeOf<undefined>();
    expectTypeOf<ControlQuery<'listDeliveries'>>().toHaveProperty('page').toEqualTypeOf<string | number | undefined>();
    expectTypeOf<ControlBody<'configureClock'>>().toEqualTypeOf<{ mode?: 'realtime' | 'manual' | undefined; speed?: number | undefined }>();
    // What does not type-check (never run: these would be requests).
    const unused = (c: ControlClient) => {
      // @ts-expect-error the order's reference is required
      void c.simulatePayin();
      // @ts-expect-error not a clock mode
      void c.configureClock({ body: { mode: 'sideways' } });
      // @ts-expect-error getClock takes no body
      void c.getClock({ body: {} });
      // @ts-expect-error not an operation
      void c.call('getClocks');
    };
    expect(typeof unused).toBe('function');
  });
});
