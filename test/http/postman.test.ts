import newman, { type NewmanRunOptions, type NewmanRunSummary } from 'newman';
import sdk from 'postman-collection';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server';

// CONTRACT §19: GET /sandbox/postman.json, a Postman v2.1 collection of /v1 that signs its
// requests (spec §5.2) in Postman's script sandbox; its Happy path runs green with newman.

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => void;

let s: TestServer;
let doc: any;
beforeAll(async () => {
  // The clock is manual: a quote lives 60 virtual seconds, so the Happy path never races it.
  s = await startTestServer();
  doc = await (await fetch(`${s.url}/openapi.json`)).json();
});
afterAll(() => s.close());

async function collection(query = ''): Promise<any> {
  const res = await s.request('GET', `/sandbox/postman.json${query}`);
  expect(res.status).toBe(200);
  return res.body;
}

/** newman.run as a promise; no reporter (the test reads the summary). */
function run(options: NewmanRunOptions): Promise<NewmanRunSummary> {
  return new Promise((resolve, reject) => {
    newman.run({ reporters: [], ...options }, (error, summary) => (error ? reject(error) : resolve(summary)));
  });
}

/** What each request of a run got: `Folder / Item → status`. */
const answers = (summary: NewmanRunSummary) => summary.run.executions.map((e) => ({ name: e.item.name, code: e.response?.code }));

const folder = (c: any, name: string) => c.item.find((f: any) => f.name === name);
const requestsOf = (c: any): any[] => c.item.flatMap((f: any) => f.item.map((i: any) => ({ folder: f.name, ...i })));

describe('GET /sandbox/postman.json (CONTRACT §19)', () => {
  it('is a Postman v2.1 attachment with every /v1 operation of the document once, in a folder per tag', async () => {
    const res = await s.request('GET', '/sandbox/postman.json');
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="ramp-sandbox.postman_collection.json"');
    const c = res.body;
    expect(c.info.schema).toBe('https://schema.getpostman.com/json/collection/v2.1.0/collection.json');
    expect(c.item.map((f: any) => f.name)).toEqual(['Happy path', 'Health', 'Reference data', 'Orders']);
    const documented: string[] = [];
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      if (!path.startsWith('/v1/')) continue;
      for (const [method, op] of Object.entries<any>(item)) documented.push(`${op.tags[0]} ${method.toUpperCase()} ${path}`);
    }
    const inFolders = requestsOf(c)
      .filter((r) => r.folder !== 'Happy path')
      .map((r) => `${r.folder} ${r.request.method} /${r.request.url.path.map((p: string) => p.replace(/^:(\w+)$/, '{$1}')).join('/')}`);
    expect(inFolders.sort()).toEqual(documented.sort());
  });

  it("carries the partner's credentials as variables and a collection-level script that signs per spec §5.2", async () => {
    const c = await collection();
    const variables = Object.fromEntries(c.variable.map((v: any) => [v.key, v.value]));
    expect(variables).toMatchObject({
      baseUrl: s.url,
      clientId: s.demo.clientId,
      environment: 'test',
      publicKey: s.demo.keys.test.public_key,
      secretKey: s.demo.keys.test.secret_key,
      encryptionKey: s.demo.keys.test.encryption_key,
    });
    expect(c.auth).toEqual({ type: 'bearer', bearer: [{ key: 'token', value: '{{secretKey}}', type: 'string' }] });
    const script = c.event.find((e: any) => e.listen === 'prerequest').script.exec.join('\n');
    expect(script).toContain('HmacSHA256(canonical, encryptionKey)');
    expect(script).toContain("[clientId, timestamp, pm.request.method.toUpperCase(), path, rawBody].join('|')");
    for (const header of ['svc-client-id', 'svc-timestamp', 'svc-signature']) expect(script).toContain(`key: '${header}'`);
  });

  it('reads the same through the Postman SDK (postman-collection, as newman reads it)', async () => {
    const c = await collection();
    expect(sdk.Collection.isCollection(new sdk.Collection(c))).toBe(true);
    const parsed = new sdk.Collection(c);
    expect(parsed.variables.toObject()).toEqual(Object.fromEntries(c.variable.map((v: any) => [v.key, v.value])));
    expect(parsed.events.all().map((e) => [e.listen, e.script.exec])).toEqual(c.event.map((e: any) => [e.listen, e.script.exec]));
    const ours = requestsOf(c);
    const theirs: Array<{ name: string; request: sdk.Request; events: sdk.Event[] }> = [];
    parsed.forEachItem((item) => theirs.push({ name: item.name, request: item.request, events: item.events.all() }));
    expect(theirs.map((t) => t.name)).toEqual(ours.map((o) => o.name));
    ours.forEach((o, i) => {
      const t = theirs[i]!;
      expect(t.request.method).toBe(o.request.method);
      expect(t.request.url.getHost()).toBe('{{baseUrl}}');
      expect(t.request.url.getPath({ unresolved: true })).toBe(`/${o.request.url.path.join('/')}`);
      expect(t.request.url.getQueryString()).toBe(new URL(o.request.url.raw.replace('{{baseUrl}}', 'http://x')).search.slice(1));
      expect(t.request.url.variables.toObject()).toEqual(
        Object.fromEntries((o.request.url.variable ?? []).map((v: any) => [v.key, v.value])),
      );
      expect(t.request.body?.raw).toBe(o.request.body?.raw);
      expect(t.request.headers.toObject(false, true)).toEqual(Object.fromEntries(o.request.header.map((h: any) => [h.key, h.value])));
      expect(t.events.map((e) => e.script.exec)).toEqual((o.event ?? []).map((e: any) => e.script.exec));
    });
  });

  it("gives bodies and parameters valid for the document's schemas", async () => {
    const c = await collection();
    const ajv = new Ajv2020({ strict: false, validateSchema: false });
    addFormats(ajv);
    ajv.addSchema({ ...doc, $id: 'openapi.json' });
    const pointer = (path: string) => path.replace(/~/g, '~0').replace(/\//g, '~1');
    for (const r of requestsOf(c)) {
      const path = `/${r.request.url.path.map((p: string) => p.replace(/^:(\w+)$/, '{$1}')).join('/')}`;
      const op = doc.paths[path][r.request.method.toLowerCase()];
      if (op.requestBody) {
        const validate = ajv.getSchema(
          `openapi.json#/paths/${pointer(path)}/${r.request.method.toLowerCase()}/requestBody/content/application~1json/schema`,
        )!;
        const body = JSON.parse(r.request.body.raw);
        expect(validate(body), `${r.folder} / ${r.name}: ${JSON.stringify(validate.errors)}`).toBe(true);
      } else {
        expect(r.request.body).toBeUndefined();
      }
      for (const p of op.parameters ?? []) {
        if (p.in !== 'query') continue;
        const q = r.request.url.query?.find((x: any) => x.key === p.name);
        expect(q, `${r.name}: query ${p.name}`).toBeDefined();
        // Optional ones are there to switch on (the Happy path sends its include).
        if (r.folder !== 'Happy path') expect(Boolean(q.disabled), `${r.name}: ${p.name} is sent when required`).toBe(!p.required);
      }
    }
  });

  it("makes another partner's collection in live, whose Happy path quotes on a live network", async () => {
    const other = await s.createPartner({ name: 'Postman' });
    const c = await collection(`?client_id=${other.clientId}&environment=live`);
    const variables = Object.fromEntries(c.variable.map((v: any) => [v.key, v.value]));
    expect(variables).toMatchObject({
      clientId: other.clientId,
      environment: 'live',
      secretKey: other.keys.live.secret_key,
      encryptionKey: other.keys.live.encryption_key,
    });
    const quote = JSON.parse(folder(c, 'Happy path').item[0].request.body.raw);
    const live = (await s.signed('GET', '/v1/networks', undefined, { env: 'live' })).body.data.map((n: any) => n.identifier);
    expect(live).toContain(quote.to.network);
  });

  it('refuses an unknown partner, an unknown environment and an empty client id with the error envelope', async () => {
    const unknown = await s.request('GET', '/sandbox/postman.json?client_id=ptr_nobody');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ status: false, code: 'E_NOTFOUND', message: expect.stringContaining('ptr_nobody') });
    for (const query of ['?environment=prod', '?client_id=']) {
      const res = await s.request('GET', `/sandbox/postman.json${query}`);
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ status: false, code: 'E_VALIDATION_ERROR' });
    }
  });
});

describe('the collection run by newman against a fresh sandbox (CONTRACT §19)', () => {
  it('runs the Happy path green: quote, order from the quote, get, cancel, every assertion passing', async () => {
    await s.control('DELETE', '/sandbox/requests');
    const summary = await run({ collection: await collection(), folder: 'Happy path' });
    expect(summary.run.failures.map((f) => `${f.source?.name ?? ''}: ${f.error.message}`)).toEqual([]);
    expect(answers(summary)).toEqual([
      { name: 'Create a quote', code: 200 },
      { name: 'Create an order from the quote', code: 200 },
      { name: 'Get the order', code: 200 },
      { name: 'Cancel the order', code: 200 },
    ]);
    expect(summary.run.stats.assertions).toMatchObject({ total: 8, failed: 0 });
    // What the sandbox saw: four secret-key requests, the GET with its query string.
    const seen = (await s.control('GET', '/sandbox/requests')).body.data.reverse();
    expect(seen.map((r: any) => [r.method, r.path.replace(/ORD\w+/, 'REF'), r.status, r.auth])).toEqual([
      ['POST', '/v1/orders/quote', 200, 'secret'],
      ['POST', '/v1/orders', 200, 'secret'],
      ['GET', '/v1/orders/REF?include=payout,timeline', 200, 'secret'],
      ['PATCH', '/v1/orders/REF/cancel', 200, 'secret'],
    ]);
    // The body signed is the body sent: {{$guid}} was drawn once.
    const created = JSON.parse(seen[1].request_body);
    expect(created.merchant_reference).toMatch(/^postman-[0-9a-f-]{36}$/);
    expect(JSON.parse(seen[1].response_body).data.merchant_reference).toBe(created.merchant_reference);
  }, 60_000);

  it('signs every request of the collection: reference data with query strings answers 200, nothing is refused for its credentials', async () => {
    const summary = await run({ collection: await collection() });
    const got = answers(summary);
    expect(got.length).toBeGreaterThan(20);
    expect(got.filter((a) => a.code === 401 || a.code === 403 || (a.code ?? 0) >= 500)).toEqual([]);
    const reference = summary.run.executions.filter((e) => folderOf(e) === 'Reference data');
    expect(reference.map((e) => [e.item.name, e.response.code])).toEqual(reference.map((e) => [e.item.name, 200]));
    // GETs with a query string were among them (institutions, account lookup, exchange rate).
    expect(reference.filter((e) => e.request.url.getQueryString() !== '').length).toBeGreaterThanOrEqual(3);
    expect(summary.run.failures).toEqual([]);
  }, 60_000);

  it('runs whole: the Orders folder acts on an order of its own, never one the Happy path cancelled (issue 6)', async () => {
    await s.control('DELETE', '/sandbox/requests');
    const summary = await run({ collection: await collection() });
    const orders = summary.run.executions
      .filter((e) => folderOf(e) === 'Orders')
      .map((e) => ({ name: e.item.name, method: e.request.method, path: e.request.url.getPath(), code: e.response?.code }));
    const happy = summary.run.executions.filter((e) => folderOf(e) === 'Happy path');
    const cancelled = happy.at(-1)!.request.url.getPath().split('/')[3];
    const created = orders.find((o) => o.method === 'POST' && o.path === '/v1/orders');
    const cancel = orders.find((o) => o.method === 'PATCH');
    expect(created?.code, JSON.stringify(orders)).toBe(200);
    expect(cancel?.code, JSON.stringify(orders)).toBe(200);
    // every request on /v1/orders/{reference} names the order the folder made, not the Happy path's
    const own = orders.filter((o) => /^\/v1\/orders\/ORD/.test(o.path)).map((o) => o.path.split('/')[3]);
    expect(own.length).toBeGreaterThanOrEqual(3);
    expect(own).not.toContain(cancelled);
    expect(new Set(own).size).toBe(1);
    expect(summary.run.failures).toEqual([]);
    // the folder's reads and its cancel succeed; fulfil needs a pay-in seen, which /v1 cannot make
    expect(orders.filter((o) => o.code !== 200).map((o) => `${o.method} ${o.path.replace(/ORD\w+/, '{reference}')} ${o.code}`)).toEqual([
      'POST /v1/orders/{reference}/fulfill 400',
    ]);
  }, 60_000);

  it('runs a live collection whole: the Orders folder quotes and orders on a live network too', async () => {
    // Its bodies were the document's examples, on base-sepolia: 400 "unknown network base-sepolia
    // in the live environment", and the folder's cancel then acted on the Happy path's order.
    const summary = await run({ collection: await collection('?environment=live') });
    const orders = summary.run.executions
      .filter((e) => folderOf(e) === 'Orders')
      .map((e) => `${e.request.method} ${e.request.url.getPath().replace(/ORD\w+/, '{reference}')} ${e.response?.code}`);
    expect(orders).toContain('POST /v1/orders/quote 200');
    expect(orders).toContain('POST /v1/orders 200');
    expect(orders).toContain('PATCH /v1/orders/{reference}/cancel 200');
    expect(summary.run.failures.map((f) => `${f.source?.name}: ${f.error.message}`)).toEqual([]);
  }, 60_000);

  it('signs the path and query Postman sends when they need percent-encoding', async () => {
    const c = await collection();
    const odd = {
      name: 'Odd characters',
      request: {
        method: 'GET',
        header: [],
        url: {
          raw: '{{baseUrl}}/v1/networks/:identifier',
          host: ['{{baseUrl}}'],
          path: ['v1', 'networks', ':identifier'],
          query: [
            { key: 'q', value: `a b'"é<{x}>` },
            { key: 'done', value: '50%25' },
            { key: 'flag', value: null },
            { key: 'env', value: '{{environment}}' },
            { key: 'off', value: 'x', disabled: true },
          ],
          variable: [{ key: 'identifier', value: 'base sepolia é`{}' }],
        },
      },
    };
    const summary = await run({ collection: { ...c, item: [{ name: 'Odd', item: [odd] }] } });
    // Refused for its meaning (no such network), not for its signature.
    expect(answers(summary)).toEqual([{ name: 'Odd characters', code: 404 }]);
    const [seen] = (await s.control('GET', '/sandbox/requests?limit=1')).body.data;
    expect(seen).toMatchObject({
      auth: 'secret',
      status: 404,
      path: '/v1/networks/base%20sepolia%20%C3%A9%60%7B%7D?q=a%20b%27%22%C3%A9%3C{x}%3E&done=50%25&flag&env=test',
    });
  }, 60_000);

  it('fails when the signature is wrong (the check is not vacuous)', async () => {
    const summary = await run({
      collection: await collection(),
      folder: 'Happy path',
      envVar: [{ key: 'encryptionKey', value: `enc_test_${'x'.repeat(32)}` }],
    });
    expect(answers(summary)[0]).toEqual({ name: 'Create a quote', code: 401 });
    expect(summary.run.stats.assertions.failed).toBeGreaterThan(0);
  }, 60_000);
});

/** The folder an execution's item sits in. */
function folderOf(execution: NewmanRunSummary['run']['executions'][number]): string | undefined {
  const parent = execution.item.parent() as unknown as { name?: string } | undefined;
  return parent?.name;
}
