/**
 * CONTRACT §19, issue 18: a request the OpenAPI document allows is not refused for its shape.
 * For every operation, requests are generated from the document's own schemas (json-schema-faker,
 * seeded) and sent, signed as spec §5.2 says for /v1; each may be refused for its meaning (an
 * unknown currency or reference, a status that does not allow the step: 400, 404, 409, or a 422
 * that depends on reference data, the order or the clock, listed in MEANING below), never for its
 * shape. The seed is FC_SEED's (test/support/property.ts): FC_SEED=<n> explores another.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { generate, type JsonSchema } from 'json-schema-faker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FC_SEED } from '../support/property';
import { EVM_ADDRESS, customer } from '../support/orders';
import { startReceiver, type Receiver } from '../support/receiver';
import { signedHeaders } from '../support/sign';
import { startTestServer, type Caller, type TestServer } from '../support/server';

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => void;

/** Requests per operation, besides the one made of the document's examples. */
const RUNS = 16;

/**
 * 422s that depend on something besides the request's shape (the document cannot state them):
 * reference data (a currency's kind and precision, a network's address format, a bank's records),
 * the order addressed (its pay-in kind), the virtual clock (how far ahead), and the one rule
 * between two fields JSON Schema cannot compare (the document says it in words: LatencyRange).
 */
const MEANING: RegExp[] = [
  /^(?:from|to)\.network: (?:must be omitted for fiat|required for crypto) currency /,
  /^[\w.]+: -?[0-9.e+-]+ has more than [0-9]+ decimal places, the precision of /,
  /^amount: rounds to 0 at [0-9]+ decimal places$/,
  /^(?:recipient|refund)\.address: must be an? \w+ address: /,
  /^tx_hash: must be an? \w+ transaction hash: /,
  /^(?:recipient|refund)\.institution_code: .* is not an institution for /,
  /^(?:recipient|refund)\.account_number: no account /,
  /^recipient\.account_name: does not match the bank record /,
  /^tx_hash: not allowed for a fiat pay-in; use tx_reference$/,
  /^tx_reference: not allowed for a crypto pay-in; use tx_hash$/,
  /^tx_hash: not allowed for a fiat pay-in \(onramp\); send reference and institution$/,
  /^(?:reference|institution): not allowed for a crypto pay-in \(offramp, swap\); send tx_hash$/,
  /^to: must be at most 10 years ahead of the virtual now /,
  /^latency_ms\.min: min must not exceed max$/,
  // CONTRACT §22: a fault window's bounds against each other (an instant against a duration needs the clock) and the clock
  /^window\.to: must be after from /,
  /^window\.to: is already past /,
  // CONTRACT §22: the same rule between two fields (ChaosDelay says it in words), and the clock's reach
  /^delay\.min: min must not exceed max$/,
  /^path\.[0-9]+\.at: must be at most 10 years ahead of the virtual now /,
];

/** 400s about the shape of a request (CONTRACT §3): every other 400 is about its meaning. */
const SHAPE_400 = [
  /^Malformed JSON/,
  /^Content-Type must be/,
  /exceeds the .* limit/,
  /^Method not allowed/,
  /^order: give an order reference, or data to send$/,
];

/** Operations left out, and why. */
const SKIPPED: Record<string, string> = {
  // A state document is what GET /sandbox/state answers, checked for meaning throughout
  // (references that resolve, counters, keys shared): generated ones are refused for that.
  putState: 'its body is a whole state document from GET /sandbox/state',
};

/** A server-sent event stream stays open: no answer to classify. */
const isStream = (op: Json) => Object.values<Json>(op.responses ?? {}).some((r) => r.content?.['text/event-stream']);

/** Run last: they take away what the other operations' real identifiers point at. */
const LAST = ['advanceClock', 'expireOrder', 'reset'];

type Json = Record<string, any>;
interface Operation {
  method: string;
  path: string;
  op: Json;
}

let s: TestServer;
let receiver: Receiver;
let doc: Json;
let ajv: Ajv2020;
let other: Caller;
/** The document's components with every `example` offered to the generator as a value too. */
let exampleComponents: Json;
const pool: Record<string, string[]> = {};

beforeAll(async () => {
  s = await startTestServer();
  receiver = await startReceiver();
  doc = (await (await fetch(`${s.url}/openapi.json`)).json()) as Json;
  ajv = new Ajv2020({ strict: false, allErrors: false, validateSchema: false, inlineRefs: false });
  addFormats(ajv);
  ajv.addSchema({ ...doc, $id: 'openapi.json' });
  exampleComponents = withExamples(doc.components) as Json;
  // Real identifiers to put in paths (and in a body's client_id) half the time: a stateful
  // fuzzer gets them by following the document's links. Partner steps go to a partner of their
  // own, so the demo partner's keys keep signing.
  other = await s.createPartner({ webhook_url: receiver.url });
  const demo = { partner: s.sandbox.demoPartner, env: 'test' as const };
  const mine = { partner: s.sandbox.partners.require(other.clientId), env: 'test' as const };
  const onramp = s.sandbox.orders.create(mine, {
    from: { currency: 'NGN', amount: 50_000 },
    to: { currency: 'USDT', network: 'base-sepolia' },
    recipient: { address: EVM_ADDRESS },
    customer,
  });
  const swap = s.sandbox.orders.create(demo, {
    from: { currency: 'USDC', network: 'base-sepolia', amount: 100 },
    to: { currency: 'ETH', network: 'base-sepolia' },
    recipient: { address: EVM_ADDRESS },
    customer,
  });
  const demoOnramp = s.sandbox.orders.create(demo, {
    from: { currency: 'NGN', amount: 20_000 },
    to: { currency: 'USDT', network: 'base-sepolia' },
    recipient: { address: EVM_ADDRESS },
    customer,
  });
  await s.sandbox.dispatcher.idle();
  const fault = s.sandbox.faults.add({ client_id: 'nobody', error: { status: 503 } });
  await s.signed('GET', '/v1/networks');
  pool.reference = [onramp.reference, swap.reference, demoOnramp.reference];
  pool.client_id = [other.clientId];
  pool.ownOrder = [onramp.reference];
  pool.identifier = ['base-sepolia', 'USDT'];
  pool.pair = ['NGN_USDT'];
  pool.name = ['app.js'];
  pool.id = [s.sandbox.dispatcher.list()[0]!.id, s.sandbox.requests.list({ limit: 1 })[0]!.id, fault.id];
  // orders of the demo partner by pay-in kind, for fulfil (see realParam); one with a pay-in seen
  // but not confirmed, which is what fulfil confirms
  s.sandbox.orders.simulatePayin(demoOnramp.reference, { confirmed: false });
  pool.fiatPayin = [demoOnramp.reference];
  pool.cryptoPayin = [swap.reference];
});
afterAll(async () => {
  await receiver?.close();
  await s?.close();
});

/** Every operation of the document, in its order, but those of LAST at the end. */
function operations(): Operation[] {
  const all: Operation[] = [];
  for (const [path, item] of Object.entries<Json>(doc.paths)) {
    for (const [method, op] of Object.entries<Json>(item)) all.push({ method: method.toUpperCase(), path, op });
  }
  return [...all.filter((o) => !LAST.includes(o.op.operationId)), ...all.filter((o) => LAST.includes(o.op.operationId))];
}

/** A small seeded generator (mulberry32) for the choices around the generated values. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const hash = (text: string) => [...text].reduce((h, c) => (Math.imul(h, 31) + c.charCodeAt(0)) >>> 0, 7);

/** The document's schema with every `example` offered to the generator as one of its values. */
function withExamples(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withExamples);
  if (node === null || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node)) out[k] = withExamples(v);
  if ('example' in out && !('examples' in out)) out.examples = [out.example];
  return out;
}

const validators = new Map<string, ValidateFunction>();
function validatorOf(pointer: string): ValidateFunction {
  let v = validators.get(pointer);
  if (!v) validators.set(pointer, (v = ajv.getSchema(`openapi.json#${pointer}`)!));
  return v;
}

/** A value for `schema` (with the document's components), valid by the document, or undefined. */
async function valueFor(schema: Json, pointer: string, seed: number, examples: boolean): Promise<unknown> {
  const components = examples ? exampleComponents : doc.components;
  const root = { ...(examples ? (withExamples(schema) as Json) : schema), components } as JsonSchema;
  const valid = validatorOf(pointer);
  for (let attempt = 0; attempt < 8; attempt++) {
    const value = await generate(root, { seed: seed + attempt * 7919, maxDepth: 4, useExamplesValue: examples, optionalsProbability: 0.6 });
    // json-schema-faker does not read `not`: what it makes against one is made again
    if (valid(value)) return value;
  }
  return undefined;
}

const escapePointer = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

interface Made {
  path: string;
  body?: unknown;
}

/** One request for `o`: run 0 is the document's examples, the others generated from its schemas. */
async function requestFor(o: Operation, run: number): Promise<Made | undefined> {
  const seed = (FC_SEED + hash(o.op.operationId) + run * 104_729) >>> 0;
  const random = rng(seed);
  const fromExamples = run === 0;
  const real = run % 2 === 1;
  let path = o.path;
  const query: string[] = [];
  let body: unknown;
  const ref = `/paths/${escapePointer(o.path)}/${o.method.toLowerCase()}`;
  if (o.op.requestBody) {
    const pointer = `${ref}/requestBody/content/application~1json/schema`;
    const schema = o.op.requestBody.content['application/json'].schema as Json;
    body = fromExamples ? exampleOf(schema) : await valueFor(schema, pointer, seed, run % 4 === 2);
    if (body === undefined) return undefined;
    body = localTargets(body);
    if ((real || fromExamples) && isObject(body)) {
      if (typeof body.client_id === 'string') body.client_id = pool.client_id![0];
      if (typeof body.order === 'string') body.order = pool.ownOrder![0];
    }
  }
  for (const [i, p] of ((o.op.parameters ?? []) as Json[]).entries()) {
    const pointer = `${ref}/parameters/${i}/schema`;
    let value: unknown;
    if (p.in === 'path' && (real || fromExamples)) value = realParam(o, p.name, body, random);
    if (value === undefined && fromExamples) value = p.example;
    if (value === undefined) {
      if (p.in === 'query' && !p.required && random() < 0.4) continue;
      value = await valueFor(p.schema, pointer, seed + i, false);
      if (value === undefined) return undefined;
    }
    const text = Array.isArray(value) && p.explode === false ? value.join(',') : String(value);
    if (p.in === 'path') {
      // "." and ".." are segments every URL parser removes: no client can send them as a value
      if (text === '.' || text === '..') return undefined;
      path = path.replace(`{${p.name}}`, encodeURIComponent(text));
    } else if (p.in === 'query') {
      // an array exploded (the OpenAPI default for style form) is the parameter repeated
      const texts = Array.isArray(value) && p.explode !== false ? value.map(String) : [text];
      for (const t of texts) query.push(`${p.name}=${encodeURIComponent(t)}`);
    }
  }
  return { path: query.length ? `${path}?${query.join('&')}` : path, body };
}

/** The document's own example of a schema (a component's, through its $ref). */
function exampleOf(schema: Json): unknown {
  if (schema.$ref) return exampleOf(doc.components.schemas[(schema.$ref as string).split('/').pop()!]);
  return structuredClone(schema.example);
}

/** A real identifier for a path parameter (fulfil: an order whose pay-in kind the body proves). */
function realParam(o: Operation, name: string, body: unknown, random: () => number): string | undefined {
  if (o.op.operationId === 'fulfillOrder' && isObject(body)) return ('tx_hash' in body ? pool.cryptoPayin : pool.fiatPayin)![0];
  const values = pool[name];
  return values?.[Math.floor(random() * values.length)];
}

/** Webhook targets generated from the document are sent nowhere but to the test's own receiver. */
function localTargets(body: unknown): unknown {
  if (!isObject(body)) return body;
  for (const key of ['url', 'webhook_url']) if (typeof body[key] === 'string') body[key] = receiver.url;
  return body;
}

const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Why an answer is a refusal for the request's shape, or undefined when it is not. */
function shapeRefusal(status: number, body: Json | undefined): string | undefined {
  const message = String(body?.message ?? '');
  if (status < 400 || status === 404 || status === 409) return undefined;
  if (status === 400) return SHAPE_400.some((re) => re.test(message)) ? `400 ${message}` : undefined;
  if (status === 403 && body?.code === 'E_FORBIDDEN') return undefined; // a partner not KYB-approved
  if (status === 422) return MEANING.some((re) => re.test(message)) ? undefined : `422 ${message}`;
  return `${status} ${body?.code ?? ''} ${message}`;
}

describe('requests generated from GET /openapi.json (CONTRACT §19)', () => {
  it('are never refused for their shape, on any operation', async () => {
    const failures: string[] = [];
    const tally: Record<string, Record<number, number>> = {};
    let sent = 0;
    for (const o of operations()) {
      const id = o.op.operationId as string;
      if (SKIPPED[id] || isStream(o.op)) continue;
      for (let run = 0; run <= RUNS; run++) {
        const made = await requestFor(o, run);
        if (!made) continue;
        const raw = made.body === undefined ? undefined : JSON.stringify(made.body);
        const secured = (o.op.security as Json[] | undefined)?.some((r) => 'signature' in r);
        const headers = secured
          ? signedHeaders({ clientId: s.demo.clientId, keys: s.demo.keys.test, method: o.method, path: made.path, body: raw })
          : raw === undefined
            ? {}
            : { 'content-type': 'application/json' };
        const res = await s.request(o.method, made.path, { headers, body: raw });
        sent++;
        (tally[id] ??= {})[res.status] = (tally[id][res.status] ?? 0) + 1;
        const why = res.status >= 500 ? `${res.status} ${res.text.slice(0, 200)}` : shapeRefusal(res.status, res.body);
        if (why) failures.push(`${o.method} ${made.path} (${id}, run ${run}) → ${why}\n    body: ${raw?.slice(0, 300)}`);
        // Leave nothing behind that would change what later requests mean.
        if (id === 'addFault') s.sandbox.faults.clear();
        if (id === 'configureClock') s.sandbox.clock.configure({ mode: 'manual' });
        if (id === 'scriptRate') s.sandbox.reference.market.clear();
        if (id === 'setWebhookChaos') s.sandbox.dispatcher.chaos.clear();
      }
    }
    const summary = Object.entries(tally)
      .map(([id, statuses]) => `${id} ${JSON.stringify(statuses)}`)
      .join('\n');
    // How far the generated requests got: at least some of them all the way, on /v1 and /sandbox.
    const succeeded = Object.entries(tally)
      .filter(([, st]) => Object.keys(st).some((c) => Number(c) < 300))
      .map(([id]) => id);
    expect(
      failures,
      `seed ${FC_SEED} (FC_SEED=<n> to try another)\n${failures.slice(0, 30).join('\n')}\n\nstatuses per operation:\n${summary}`,
    ).toEqual([]);
    expect(sent).toBeGreaterThan(500);
    expect(succeeded, summary).toEqual(
      expect.arrayContaining([
        'createQuote',
        'createOrder',
        'getOrder',
        'cancelOrder',
        'fulfillOrder',
        'createPartner',
        'advanceClock',
        'decidePayout',
        'addFault',
        'sendWebhook',
      ]),
    );
  });
});
