/**
 * CONTRACT §19, issue 6 of the container issue: clients generated in other languages work
 * unchanged. What openapi-python-client (the common Python generator) refuses or trips on, checked
 * on the served document: boolean sub-schemas, two classes of one name, parameter examples that
 * are refused together, placeholder identifiers. The generator itself is on PyPI, which this
 * machine cannot reach: test/cli/python-client.test.ts drives the API from Python as a generated
 * client does.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server';

type Json = Record<string, any>;

let s: TestServer;
let doc: Json;
beforeAll(async () => {
  s = await startTestServer();
  doc = (await (await fetch(`${s.url}/openapi.json`)).json()) as Json;
});
afterAll(() => s.close());

const escapePointer = (p: string) => p.replace(/~/g, '~0').replace(/\//g, '~1');

/** Field and parameter names whose example should be a real identifier or code (issue 6). */
const NAMED = [
  'client_id',
  'demo_client_id',
  'reference',
  'order',
  'merchant_reference',
  'customer_reference',
  'quote_id',
  'network',
  'currency',
  'asset',
  'institution_code',
  'account_number',
  'account_name',
  'tx_hash',
  'tx_reference',
];

/** Every object of the document with its JSON pointer. */
function* nodesOf(node: unknown, pointer = ''): Generator<[string, Json]> {
  if (node === null || typeof node !== 'object') return;
  if (!Array.isArray(node)) yield [pointer, node as Json];
  for (const [key, value] of Object.entries(node)) yield* nodesOf(value, `${pointer}/${escapePointer(key)}`);
}

/** Keywords whose value is one schema (JSON Schema 2020-12, as OpenAPI 3.1 uses it). */
const ONE_SCHEMA = [
  'not',
  'items',
  'contains',
  'propertyNames',
  'if',
  'then',
  'else',
  'unevaluatedItems',
  'unevaluatedProperties',
  'contentSchema',
];
/** Keywords whose value is a map of schemas, and those whose value is a list of them. */
const SCHEMA_MAP = ['properties', 'patternProperties', 'dependentSchemas', '$defs'];
const SCHEMA_LIST = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];

/**
 * Every schema of the document, with its pointer: the components' and every `schema` of a
 * parameter, header or media type, and their sub-schemas. `additionalProperties` may be a boolean
 * (OpenAPI's own idiom, which every generator reads); it is walked when it is a schema.
 */
function* schemas(node: unknown, pointer = '', inSchema = false): Generator<[string, unknown]> {
  if (node === null || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    for (const [i, item] of node.entries()) yield* schemas(item, `${pointer}/${i}`, false);
    return;
  }
  for (const [key, value] of Object.entries(node as Json)) {
    const at = `${pointer}/${escapePointer(key)}`;
    if (inSchema && ONE_SCHEMA.includes(key)) yield* schema(value, at);
    else if (inSchema && key === 'additionalProperties' && typeof value === 'object') yield* schema(value, at);
    else if (inSchema && SCHEMA_MAP.includes(key) && value && typeof value === 'object')
      for (const [k, v] of Object.entries(value)) yield* schema(v, `${at}/${escapePointer(k)}`);
    else if (inSchema && SCHEMA_LIST.includes(key) && Array.isArray(value))
      for (const [i, v] of value.entries()) yield* schema(v, `${at}/${i}`);
    else if (!inSchema && key === 'schema') yield* schema(value, at);
    else if (!inSchema && pointer === '/components/schemas') yield* schema(value, at);
    else if (!inSchema && key !== 'example' && key !== 'examples') yield* schemas(value, at, false);
  }
}
function* schema(value: unknown, pointer: string): Generator<[string, unknown]> {
  yield [pointer, value];
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) yield* schemas(value, pointer, true);
}

/** openapi-python-client's `utils.pascal_case`: words split at delimiters and case changes, each capitalised. */
function pascal(value: string): string {
  let v = value.replace(/[^\w. _-]+/g, '');
  if (/[A-Z]/.test(v)) v = v.split(/([A-Z]?[a-z]+)/).join(' ');
  const words = v.match(/[^. _-]+/g) ?? [];
  return words.map((w) => (w === w.toUpperCase() ? w : w.charAt(0).toUpperCase() + w.slice(1).toLowerCase())).join('');
}

interface Made {
  where: string;
  /** An enum's values: two enums of one name and the same values are one class. */
  enum?: string;
}

/**
 * The classes openapi-python-client makes of the document, by name, as its parser names them: a
 * component by its name (or title); an object or enum inside class `C` at property `p` as
 * `C` + `P`; a union's variants as `p_type_<i>`, an array's items as `p_item`; a query or path
 * parameter's inline enum after its operation. Two different classes of one name make it refuse
 * the document ("Attempted to generate duplicate models").
 */
function pythonClasses(document: Json): Map<string, Made[]> {
  const classes = new Map<string, Made[]>();
  const add = (name: string, made: Made) => classes.set(name, [...(classes.get(name) ?? []), made]);
  const visit = (node: Json | undefined, name: string, parent: string, where: string): void => {
    if (node === null || typeof node !== 'object' || node.$ref) return;
    const cls = (title: string) => (parent ? pascal(parent) + pascal(title) : pascal(title));
    const variants = [...(node.anyOf ?? []), ...(node.oneOf ?? [])] as Json[];
    if (Array.isArray(node.enum)) {
      add(cls(node.title ?? name), { where, enum: JSON.stringify([...node.enum].sort()) });
      return;
    }
    if (variants.length > 0 && !node.properties) {
      if (variants.length === 1 && variants[0]!.$ref) return;
      for (const [i, v] of variants.entries()) visit(v, `${name}_type_${i}`, parent, `${where}|${i}`);
      return;
    }
    if (node.type === 'array') {
      visit(node.items, `${name}_item`, parent, `${where}[]`);
      return;
    }
    if (node.type === 'object' || node.allOf || (node.type === undefined && node.properties)) {
      const own = cls(node.title ?? name);
      add(own, { where });
      for (const [key, prop] of Object.entries<Json>(node.properties ?? {})) visit(prop, key, own, `${where}.${key}`);
      for (const part of (node.allOf ?? []) as Json[])
        for (const [key, prop] of Object.entries<Json>(part.properties ?? {})) visit(prop, key, own, `${where}.${key}`);
      if (node.additionalProperties && typeof node.additionalProperties === 'object')
        visit(node.additionalProperties, 'AdditionalProperty', own, `${where}{}`);
    }
  };
  for (const [name, node] of Object.entries<Json>(document.components?.schemas ?? {})) visit(node, name, '', `components.schemas.${name}`);
  for (const [path, item] of Object.entries<Json>(document.paths ?? {})) {
    for (const [method, op] of Object.entries<Json>(item)) {
      const endpoint = String(op.operationId ?? `${method} ${path}`);
      for (const p of (op.parameters ?? []) as Json[])
        visit(p.schema, p.name, endpoint, `${method.toUpperCase()} ${path} ${p.in} ${p.name}`);
      const body = op.requestBody?.content?.['application/json']?.schema;
      if (body) visit(body, `${endpoint}_body`, '', `${method.toUpperCase()} ${path} body`);
      for (const [status, response] of Object.entries<Json>(op.responses ?? {})) {
        const media = response.content?.['application/json']?.schema;
        if (media) visit(media, `response_${status}`, endpoint, `${method.toUpperCase()} ${path} ${status}`);
      }
    }
  }
  return classes;
}

/** The names given to more than one class (enums of the same values are one class). */
function clashes(classes: Map<string, Made[]>): string[] {
  const out: string[] = [];
  for (const [name, made] of classes) {
    if (made.length < 2) continue;
    if (made.every((m) => m.enum !== undefined && m.enum === made[0]!.enum)) continue;
    out.push(`${name}: ${made.map((m) => m.where).join(', ')}`);
  }
  return out;
}

describe('GET /openapi.json for generated clients in other languages (CONTRACT §19, issue 6)', () => {
  it('has no boolean sub-schema (`{}` says what `true` says, and openapi-python-client refuses a boolean)', () => {
    const found: string[] = [];
    let seen = 0;
    for (const [pointer, value] of schemas(doc)) {
      seen++;
      if (typeof value === 'boolean') found.push(`${pointer}: ${value}`);
    }
    expect(seen).toBeGreaterThan(1000);
    expect(found).toEqual([]);
  });

  it('finds the boolean sub-schemas it looks for (the walk is not vacuous)', () => {
    const planted = structuredClone(doc);
    planted.components.schemas.FiatLeg.not.properties.network = true;
    planted.paths['/v1/orders/{reference}'].get.parameters[0].schema = false;
    expect(
      [...schemas(planted)]
        .filter(([, v]) => typeof v === 'boolean')
        .map(([p]) => p)
        .sort(),
    ).toEqual(['/components/schemas/FiatLeg/not/properties/network', '/paths/~1v1~1orders~1{reference}/get/parameters/0/schema']);
  });

  it('gives no two classes of a generated Python client one name', () => {
    const classes = pythonClasses(doc);
    expect(classes.get('KeySets')).toHaveLength(1);
    expect(classes.get('PartnerKeys')).toHaveLength(1);
    expect(clashes(classes)).toEqual([]);
  });

  it('gives client ids, order references and codes real-looking examples, never the word "example"', () => {
    const placeholders: string[] = [];
    const ids: string[] = [];
    const look = (value: unknown, at: string): void => {
      if (Array.isArray(value)) for (const [i, v] of value.entries()) look(v, `${at}/${i}`);
      else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) look(v, `${at}/${k}`);
      else if (at.endsWith('/client_id') && typeof value === 'string') ids.push(value);
    };
    for (const [pointer, node] of nodesOf(doc)) {
      if ('in' in node && 'name' in node && 'example' in node) {
        if (node.name === 'client_id') ids.push(node.example);
        if (NAMED.includes(node.name) && node.example === 'example') placeholders.push(pointer);
      }
      if ('example' in node && !pointer.includes('/example')) look(node.example, `${pointer}/example`);
      for (const [key, prop] of Object.entries<Json>(node.properties ?? {}))
        if (NAMED.includes(key) && prop?.example === 'example') placeholders.push(`${pointer}/properties/${key}`);
      if (node.example && typeof node.example === 'object')
        for (const key of NAMED) if (node.example[key] === 'example') placeholders.push(`${pointer}/example/${key}`);
    }
    expect(placeholders).toEqual([]);
    expect(ids.length).toBeGreaterThan(10);
    expect(ids.filter((id) => !/^ptr_[a-z0-9_]+$/.test(id))).toEqual([]);
  });

  it('has parameter examples that GET /sandbox/tail accepts each alone and all together', async () => {
    const op = doc.paths['/sandbox/tail'].get;
    const params = (op.parameters as Json[]).filter((p) => p.in === 'query');
    expect(params.map((p) => p.name).sort()).toEqual(['client_id', 'deliveries', 'requests']);
    const queries = [...params.map((p) => [p]), params].map((set) =>
      set.map((p) => `${p.name}=${encodeURIComponent(String(p.example))}`).join('&'),
    );
    for (const query of queries) {
      const controller = new AbortController();
      const res = await fetch(`${s.url}/sandbox/tail?${query}`, { signal: controller.signal });
      const status = res.status;
      const type = res.headers.get('content-type');
      const first = status === 200 ? new TextDecoder().decode((await res.body!.getReader().read()).value) : await res.text();
      controller.abort();
      expect({ query, status, type, first: first.split('\n')[0] }).toEqual({
        query,
        status: 200,
        type: expect.stringContaining('text/event-stream'),
        first: 'event: ready',
      });
    }
  });

  it('has no object whose `not` rules out a set of its own properties (a fuzzer\'s "every property" object could never be made)', () => {
    const unsatisfiable: string[] = [];
    for (const [pointer, node] of nodesOf(doc.components)) {
      const own = new Set(Object.keys(node.properties ?? {}));
      const not = node.not;
      if (!own.size || !not || typeof not !== 'object') continue;
      for (const branch of [not, ...((not.anyOf ?? []) as Json[])]) {
        const required = (branch.required ?? []) as string[];
        if (required.length > 0 && required.every((key) => own.has(key))) unsatisfiable.push(`${pointer}: not ${required.join(' and ')}`);
      }
    }
    expect(unsatisfiable).toEqual([]);
  });

  it('states the pay-in body as before: tx_hash or tx_reference or neither, never both', () => {
    const ajv = new Ajv2020({ strict: false, validateSchema: false });
    ajv.addSchema({ ...doc, $id: 'openapi.json' });
    const valid = ajv.getSchema('openapi.json#/components/schemas/PayinBody')!;
    const hash = `0x${'ab'.repeat(32)}`;
    expect(
      [
        {},
        { amount: 10 },
        { tx_hash: hash },
        { tx_reference: 'TRF1', confirmed: false },
        { amount: 5, tx_hash: hash, confirmed: true },
      ].map((b) => valid(b)),
    ).toEqual([true, true, true, true, true]);
    expect([{ tx_hash: hash, tx_reference: 'TRF1' }, { tx_hash: ' x' }, { tx_reference: '' }, { amount: 0 }].map((b) => valid(b))).toEqual([
      false,
      false,
      false,
      false,
    ]);
  });

  it('names the classes as openapi-python-client does (the check finds an inline object that clashes)', () => {
    expect(pascal('getOrder')).toBe('GetOrder');
    expect(pascal('include_item')).toBe('IncludeItem');
    expect(pascal('OrderDetailResponse')).toBe('OrderDetailResponse');
    const planted = structuredClone(doc);
    planted.components.schemas.Partner.properties.keys = { type: 'object', properties: { test: { $ref: '#/components/schemas/KeySet' } } };
    expect(clashes(pythonClasses(planted))).toEqual(['PartnerKeys: components.schemas.Partner.keys, components.schemas.PartnerKeys']);
  });
});
