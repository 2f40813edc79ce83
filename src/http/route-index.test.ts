import { beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import Router, { type Layer } from '@koa/router';
import type { Context, Middleware } from 'koa';
import { startServer } from '../sandbox/sandbox';
import { indexedDispatch } from './route-index';
import { seeded } from '../../test/support/property';

/**
 * The index must answer exactly as @koa/router would: the same route, the same params, and
 * `next` (404/405 handling) exactly when the router calls it. Checked over the sandbox's own
 * route table (from its OpenAPI document), a `router.use('/sandbox')` layer, and a route added
 * to the router directly, on generated paths: real ones with any param values, case changes,
 * trailing slashes, percent-encoding, and near misses.
 */
describe('indexedDispatch', () => {
  let templates: Array<{ method: string; path: string }> = [];
  let viaRouter: Middleware;
  let viaIndex: Middleware;
  beforeAll(async () => {
    const running = await startServer({ port: 0, logLevel: 'silent', clockMode: 'manual' });
    const doc = (await (await fetch(`${running.url}/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    await running.close();
    templates = Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item).map((m) => ({ method: m.toUpperCase(), path })));
    const { router, chains } = build();
    viaRouter = router.routes() as unknown as Middleware;
    viaIndex = indexedDispatch(router, chains);
  });

  function build() {
    const router = new Router();
    const chains = new Map<Layer, Middleware>();
    const answer = (id: string): Middleware => (ctx) => {
      ctx.body = { id, params: { ...ctx.params } };
    };
    router.get('/openapi.json', answer('direct /openapi.json'));
    let guarded = false;
    templates.forEach((t, i) => {
      // as main.ts does: the admin guard ahead of the first /sandbox route
      if (t.path.startsWith('/sandbox') && !guarded && (guarded = true)) router.use('/sandbox', (ctx, next) => ((ctx.state.admin = true), next()));
      const id = `${t.method} ${t.path} #${i}`;
      router[t.method.toLowerCase() as 'get'](t.path.replace(/\{(\w+)\}/g, ':$1'), answer(id));
      chains.set(router.stack.at(-1)!, answer(id));
    });
    return { router, chains };
  }

  async function run(mw: Middleware, method: string, path: string) {
    const ctx = { method, path, request: {}, state: {}, body: undefined } as unknown as Context;
    let nexted = false;
    await mw(ctx, async () => {
      nexted = true;
    });
    return { body: ctx.body as unknown, nexted, admin: (ctx.state as { admin?: boolean }).admin ?? false };
  }

  const segment = fc.oneof(
    fc.constantFrom('ORD1', 'ord_2', 'cl_x', 'NGN_USDT', 'base-sepolia', 'quote', 'orders', 'cancel', '%20a', 'a%2Fb', '%zz', '%E0%A4%A', 'caf%C3%A9', 'é', '..', 'x.y'),
    fc.stringMatching(/^[\w.~-]{1,12}$/),
  );
  const fromTemplate = fc.record({ t: fc.nat().map((n) => templates[n % templates.length]!), values: fc.array(segment, { minLength: 4, maxLength: 4 }), flip: fc.nat(), slash: fc.boolean() }).map(({ t, values, flip, slash }) => {
    let i = 0;
    let path = t.path.replace(/\{\w+\}/g, () => values[i++]!);
    if (flip % 5 === 0) path = path.replace(/[a-z]/, (c) => c.toUpperCase());
    if (slash) path += '/';
    return path;
  });
  const anyPath = fc.array(fc.oneof(segment, fc.constantFrom('v1', 'sandbox', 'health', 'networks', 'V1', '')), { maxLength: 5 }).map((s) => `/${s.join('/')}`);
  const methods = fc.constantFrom('GET', 'POST', 'PATCH', 'PUT', 'DELETE', 'HEAD', 'OPTIONS');

  it('answers every request as the router does (seeded)', async () => {
    await fc.assert(
      fc.asyncProperty(methods, fc.oneof(fromTemplate, anyPath), async (method, path) => {
        expect(await run(viaIndex, method, path), `${method} ${path}`).toEqual(await run(viaRouter, method, path));
      }),
      seeded({ numRuns: 4_000 }),
    );
  });

  it('answers the known routes itself, with their params', async () => {
    const hit = await run(viaIndex, 'GET', '/v1/orders/ORD123');
    expect(hit.body).toEqual({ id: expect.stringMatching(/^GET \/v1\/orders\/\{reference\} #\d+$/), params: { reference: 'ORD123' } });
    expect((await run(viaIndex, 'GET', '/v1/networks')).body).toMatchObject({ id: expect.stringMatching(/^GET \/v1\/networks #/) });
    expect((await run(viaIndex, 'GET', '/v1/nope')).nexted).toBe(true);
    expect((await run(viaIndex, 'GET', '/sandbox/clock')).admin).toBe(true);
  });

});
