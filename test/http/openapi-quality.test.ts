/**
 * CONTRACT §19, issue 18: what third-party tools need of GET /openapi.json, kept true. Every
 * example validates against its schema; every body and envelope is a named component; unions that
 * a property tells apart carry a discriminator; the response headers, 405, links and the webhooks'
 * headers and signature are declared; patterns read alike in every dialect; Redocly's recommended
 * rules report no error (offline).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server';

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => void;
type Json = Record<string, any>;

/**
 * The warnings Redocly's recommended rules still give, each explained in docs/openapi.md: the
 * project declares no license; GET / is a redirect, with no 2xx; the sandbox's create-order
 * variants are told apart by their legs' networks, which the overlap heuristic does not follow.
 */
const KNOWN_WARNINGS = ['info-license', 'operation-2xx-response', 'no-illogical-composition-keywords'];

let s: TestServer;
let doc: Json;
let ajv: Ajv2020;
beforeAll(async () => {
  s = await startTestServer();
  doc = (await (await fetch(`${s.url}/openapi.json`)).json()) as Json;
  ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false, inlineRefs: false });
  addFormats(ajv);
  ajv.addSchema({ ...doc, $id: 'openapi.json' });
});
afterAll(() => s.close());

const escapePointer = (p: string) => p.replace(/~/g, '~0').replace(/\//g, '~1');

/** Every node of the document with its JSON pointer. */
function* nodes(node: unknown, pointer = ''): Generator<[string, Json]> {
  if (node === null || typeof node !== 'object') return;
  if (!Array.isArray(node)) yield [pointer, node as Json];
  for (const [key, value] of Object.entries(node)) yield* nodes(value, `${pointer}/${escapePointer(key)}`);
}

/** Every operation (paths and webhooks) as [label, operation]. */
function* operations(): Generator<[string, Json, string]> {
  for (const [group, items] of [
    ['paths', doc.paths],
    ['webhooks', doc.webhooks],
  ] as const) {
    for (const [path, item] of Object.entries<Json>(items ?? {})) {
      for (const [method, op] of Object.entries<Json>(item))
        yield [`${method.toUpperCase()} ${path}`, op, `/${group}/${escapePointer(path)}/${method}`];
    }
  }
}

const resolve = (ref: string): Json =>
  ref
    .slice(2)
    .split('/')
    .reduce((node: Json, key) => node[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc);

describe('GET /openapi.json for third-party tools (CONTRACT §19)', () => {
  it('has an example on every named schema and every parameter', () => {
    const missing = Object.entries<Json>(doc.components.schemas)
      .filter(([, schema]) => !('example' in schema))
      .map(([name]) => name);
    for (const [label, op] of operations())
      for (const p of op.parameters ?? []) if (!('example' in p)) missing.push(`${label} ${p.in} ${p.name}`);
    expect(missing).toEqual([]);
  });

  it('has examples that validate against their own schemas', () => {
    const wrong: string[] = [];
    let checked = 0;
    for (const [pointer, node] of nodes(doc)) {
      if (!('example' in node) || pointer.includes('/example')) continue;
      // A parameter's example is the example of its schema.
      const schemaPointer = 'schema' in node && ('in' in node || pointer.includes('/headers/')) ? `${pointer}/schema` : pointer;
      const validate = ajv.getSchema(`openapi.json#${schemaPointer}`)!;
      checked++;
      if (!validate(node.example))
        wrong.push(`${pointer}: ${ajv.errorsText(validate.errors)} — ${JSON.stringify(node.example).slice(0, 200)}`);
    }
    expect(checked).toBeGreaterThan(300);
    expect(wrong).toEqual([]);
  });

  it('names every request body, success envelope and error response', () => {
    const inline: string[] = [];
    for (const [label, op] of operations()) {
      const body = op.requestBody?.content?.['application/json']?.schema;
      if (body && !body.$ref) inline.push(`${label} request body`);
      for (const [status, response] of Object.entries<Json>(op.responses)) {
        if (Number(status) >= 400) {
          if (!response.$ref?.startsWith('#/components/responses/')) inline.push(`${label} ${status}`);
          continue;
        }
        const schema = response.content?.['application/json']?.schema;
        if (schema && !schema.$ref) inline.push(`${label} ${status} envelope`);
      }
    }
    expect(inline).toEqual([]);
    // one fee type: the summary refers to OrderFee, never a copy of it
    expect(doc.components.schemas.OrderSummary.properties.fee).toEqual({ $ref: '#/components/schemas/OrderFee' });
  });

  it('puts a discriminator on every union a property tells apart', () => {
    const missing: string[] = [];
    for (const [pointer, node] of nodes(doc)) {
      if (!Array.isArray(node.oneOf) || node.discriminator) continue;
      const variants = (node.oneOf as Json[]).map((v) => (v.$ref ? resolve(v.$ref) : v));
      const tellers = Object.keys(variants[0]?.properties ?? {}).filter((key) =>
        variants.every(
          (v) =>
            v.required?.includes(key) &&
            Array.isArray(v.properties?.[key]?.enum) &&
            v.properties[key].enum.every((e: unknown) => typeof e === 'string'),
        ),
      );
      if (tellers.length > 0) missing.push(`${pointer} (${tellers.join(', ')})`);
    }
    expect(missing).toEqual([]);
    expect(doc.components.schemas.OrderDetail.discriminator.propertyName).toBe('type');
    expect(doc.components.schemas.PayoutBody.discriminator.propertyName).toBe('outcome');
  });

  it('states the rules issue 18 lists (quote_id or legs, recipients, dob, bounds, clock, payout, URLs)', () => {
    const schemas = doc.components.schemas;
    expect(schemas.CreateOrderBody.oneOf.map((v: Json) => v.$ref.split('/').pop())).toEqual([
      'CreateOrderFromQuote',
      'CreateOnrampOrder',
      'CreateOfframpOrder',
      'CreateSwapOrder',
    ]);
    expect(schemas.CreateOnrampOrder.properties.recipient.$ref).toBe('#/components/schemas/CryptoRecipient');
    expect(schemas.CreateOfframpOrder.properties.recipient.$ref).toBe('#/components/schemas/FiatRecipient');
    const valid = (name: string, value: unknown) => ajv.getSchema(`openapi.json#/components/schemas/${name}`)!(value);
    expect(valid('Customer', { reference: 'c', name: 'A', email: 'a@b.co', dob: '00-00-0000' })).toBe(false);
    expect(valid('Customer', { reference: 'c', name: 'A', email: 'a@b.co', dob: '29-02-2023' })).toBe(false);
    expect(valid('Customer', { reference: 'c', name: 'A', email: 'a@b.co', dob: '29-02-2024' })).toBe(true);
    expect(valid('Customer', { reference: ' c', name: 'A', email: 'a@b.co' })).toBe(false);
    expect(valid('AdvanceBody', { ms: 1, duration: '1h' })).toBe(false);
    expect(valid('AdvanceBody', {})).toBe(false);
    expect(valid('PayoutBody', { outcome: 'success', percentage: 50 })).toBe(false);
    expect(valid('PayoutBody', { outcome: 'partial' })).toBe(false);
    expect(valid('CreatePartnerBody', { webhook_url: 'ftp://x.example' })).toBe(false);
    const getOrder = doc.paths['/v1/orders/{reference}'].get;
    expect(getOrder.parameters.find((p: Json) => p.name === 'include')).toMatchObject({
      style: 'form',
      explode: true,
      schema: { type: 'array', items: { enum: ['payout', 'timeline'] } },
    });
    const list = doc.paths['/v1/orders'].get.parameters;
    expect(list.find((p: Json) => p.name === 'per_page').schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 100 });
    for (const [pointer, node] of nodes(doc)) if (typeof node.pattern === 'string') expect(node.pattern, pointer).not.toMatch(/\\[dwDW]/);
  });

  it('declares 405 on every operation, and the headers of 429, 405, a refused signature and the redirect', () => {
    for (const [label, op] of operations())
      if (!label.startsWith('POST order.')) expect(op.responses['405'], label).toEqual({ $ref: '#/components/responses/MethodNotAllowed' });
    const responses = doc.components.responses;
    expect(responses.RateLimited.headers['Retry-After']).toMatchObject({ required: true, schema: { type: 'integer' } });
    expect(responses.MethodNotAllowed.headers.Allow).toMatchObject({ required: true });
    expect(responses.Unauthorized.headers['svc-sandbox-hint']).toBeDefined();
    expect(doc.paths['/v1/orders'].post.responses['429']).toEqual({ $ref: '#/components/responses/RateLimited' });
    expect(doc.paths['/v1/orders'].post.responses['401']).toEqual({ $ref: '#/components/responses/Unauthorized' });
    expect(doc.paths['/'].get.responses['302'].headers.Location).toBeDefined();
  });

  it('links create order to get, cancel and fulfil, and create partner to its steps', () => {
    const links = doc.paths['/v1/orders'].post.responses['200'].links;
    expect(
      Object.values<Json>(links)
        .map((l) => l.operationId)
        .sort(),
    ).toEqual(['cancelOrder', 'fulfillOrder', 'getOrder']);
    expect(links.GetOrder.parameters).toEqual({ reference: '$response.body#/data/reference' });
    const partner = doc.paths['/sandbox/partners'].post.responses['200'].links;
    expect(
      Object.values<Json>(partner)
        .map((l) => l.operationId)
        .sort(),
    ).toEqual([
      'getPartner',
      'getPartnerKeys',
      'getWebhookChaos',
      'removeWebhookChaos',
      'rotatePartnerKeys',
      'setWebhookChaos',
      'updatePartner',
    ]);
    for (const [label, op] of operations()) {
      for (const link of Object.values<Json>(op.responses?.['200']?.links ?? {})) {
        const target = [...operations()].find(([, o]) => o.operationId === link.operationId)?.[1];
        expect(target, `${label} → ${link.operationId}`).toBeDefined();
        for (const name of Object.keys(link.parameters))
          expect(target!.parameters.some((p: Json) => p.name === name && p.in === 'path')).toBe(true);
      }
    }
  });

  it("declares the webhooks' headers and signature scheme", () => {
    expect(doc.components.securitySchemes.webhookSignature).toMatchObject({ type: 'apiKey', in: 'header', name: 'svc-signature' });
    for (const [event, item] of Object.entries<Json>(doc.webhooks)) {
      expect(item.post.security, event).toEqual([{ webhookSignature: [] }]);
      expect(item.post.parameters.map((p: Json) => p.name).sort(), event).toEqual([
        'svc-attempt',
        'svc-delivery-id',
        'svc-event',
        'svc-timestamp',
      ]);
    }
  });

  it("lints with no error under Redocly's recommended rules, without the network", () => {
    const dir = mkdtempSync(join(tmpdir(), 'openapi-lint-'));
    try {
      const file = join(dir, 'openapi.json');
      writeFileSync(file, JSON.stringify(doc));
      const cli = fileURLToPath(new URL('../../node_modules/@redocly/cli/bin/cli.js', import.meta.url));
      const noNetwork = fileURLToPath(new URL('../support/no-network.cjs', import.meta.url));
      const run = spawnSync(process.execPath, ['--require', noNetwork, cli, 'lint', file, '--extends', 'recommended', '--format', 'json'], {
        cwd: dir,
        encoding: 'utf8',
        timeout: 120_000,
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
      });
      expect(run.status, run.stderr).not.toBe(99); // it tried the network
      const report = JSON.parse(run.stdout.slice(run.stdout.indexOf('{'))) as {
        totals: { errors: number; warnings: number };
        problems: Array<{ ruleId: string; severity: string; message: string }>;
      };
      const errors = report.problems.filter((p) => p.severity === 'error');
      expect(errors.map((p) => `${p.ruleId}: ${p.message}`)).toEqual([]);
      const warnings = [...new Set(report.problems.map((p) => p.ruleId))];
      expect(
        KNOWN_WARNINGS,
        JSON.stringify(
          report.problems.map((p) => `${p.ruleId}: ${p.message}`),
          null,
          1,
        ),
      ).toEqual(expect.arrayContaining(warnings));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
