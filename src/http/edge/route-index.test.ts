import { beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { startServer } from '../../sandbox/sandbox';
import { indexedDispatch } from './route-index';
import { seeded } from '../../../test/support/property';

/**
 * The index must answer exactly as @koa/router would: the same route, the same params, and
 * `next` (404/405 handling) exactly when the router calls it. Checked over the sandbox's own
 * route table (from its OpenAPI document), each behind a guard as `Api.route` registers it, a
 * `router.use('/sandbox')` layer, a route added to the router directly and a layer that passes
 * on to the next, on generated paths: real ones with any param values, case changes, trailing
 * slashes, percent-encoding, and near misses.
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
    const router = build();
    viaRouter = router.routes() as unknown as Middleware;
    viaIndex = indexedDispatch(router);
  });

  function build() {
    const router = new Router();
    const answer = (id: string): Middleware => (ctx) => {
      ctx.body = { id, params: { ...ctx.params }, trail: (ctx.state as { trail?: string[] }).trail ?? [] };
    };
    // a route added to the router directly, as app.ts adds /openapi.json
    router.get('/openapi.json', answer('direct /openapi.json'));
    // a layer that passes on: the next layer matching the path runs after it, with the params merged
    router.get('/v1/networks/:network', (ctx, next) => {
      (ctx.state as { trail?: string[] }).trail = [`passed ${JSON.stringify(ctx.params)}`];
      return next();
    });
    let guarded = false;
    templates.forEach((t, i) => {
      // as sandbox.ts does: the admin guard ahead of the first /sandbox route
      if (t.path.startsWith('/sandbox') && !guarded && (guarded = true)) router.use('/sandbox', (ctx, next) => ((ctx.state.admin = true), next()));
      const id = `${t.method} ${t.path} #${i}`;
      // a guard ahead of the answer, as `Api.route` registers an authenticated route
      const guard: Middleware = (ctx, next) => next();
      router[t.method.toLowerCase() as 'get'](t.path.replace(/\{(\w+)\}/g, ':$1'), guard, answer(id));
    });
    return router;
  }

  async function run(mw: Middleware, method: string, path: string) {
    const ctx = { method, path, request: {}, state: {}, body: undefined } as unknown as Context;
    let nexted = false;
    await mw(ctx, async () => {
      nexted = true;
    });
    return { body: ctx.body as unknown, nexted, admin: (ctx.state as { admin?: boolean }).admin ?? false, ctx };
  }

  /** What `run` answers, less the context (whose bookkeeping differs: the router adds its own fields). */
  async function answer(mw: Middleware, method: string, path: string) {
    const { ctx: _ctx, ...rest } = await run(mw, method, path);
    return rest;
  }

  /** Whether the router's own dispatch ran (it sets `ctx.router`). */
  const routerRan = (ctx: Context) => (ctx as Context & { router?: unknown }).router !== undefined;

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
        expect(await answer(viaIndex, method, path), `${method} ${path}`).toEqual(await answer(viaRouter, method, path));
      }),
      seeded({ numRuns: 4_000 }),
    );
  });

  it('answers the known routes itself, with their params, and leaves the rest to the router', async () => {
    const hit = await run(viaIndex, 'GET', '/v1/orders/ORD123');
    expect(hit.body).toEqual({ id: expect.stringMatching(/^GET \/v1\/orders\/\{reference\} #\d+$/), params: { reference: 'ORD123' }, trail: [] });
    expect(routerRan(hit.ctx)).toBe(false);
    const networks = await run(viaIndex, 'GET', '/v1/networks');
    expect(networks.body).toMatchObject({ id: expect.stringMatching(/^GET \/v1\/networks #/) });
    expect(routerRan(networks.ctx)).toBe(false);
    const direct = await run(viaIndex, 'GET', '/openapi.json');
    expect(direct.body).toMatchObject({ id: 'direct /openapi.json' });
    expect(routerRan(direct.ctx)).toBe(false);
    expect((await run(viaIndex, 'GET', '/v1/networks/base-sepolia')).body).toEqual({
      id: expect.stringMatching(/^GET \/v1\/networks\/\{identifier\} #\d+$/),
      params: { network: 'base-sepolia', identifier: 'base-sepolia' },
      trail: ['passed {"network":"base-sepolia"}'],
    });
    const unknown = await run(viaIndex, 'GET', '/v1/nope');
    expect(unknown.nexted).toBe(true);
    expect(routerRan(unknown.ctx)).toBe(true);
    const control = await run(viaIndex, 'GET', '/sandbox/clock');
    expect(control.admin).toBe(true);
    expect(routerRan(control.ctx)).toBe(true);
  });
});
