import * as z from 'zod';
import type { Environment } from '../../reference';
import { asArray, asRecord, firstExample, mediaExample, resolve, sampleOf } from './openapi-sample';

// A Postman Collection v2.1 made from the OpenAPI document (CONTRACT §19): every /v1 operation,
// in a folder per tag, with the partner's credentials as collection variables and a collection-
// level pre-request script that signs each request per spec §5.2, plus a "Happy path" folder
// (quote, order from the quote, get, cancel) whose requests assert what they get and pass the
// quote id and order reference along. Postman reads the format at
// https://schema.getpostman.com/json/collection/v2.1.0/collection.json; newman runs it as it is.

/** The format's identifier, `info.schema` of every collection made here. */
const POSTMAN_SCHEMA_URL = 'https://schema.getpostman.com/json/collection/v2.1.0/collection.json';

/** The name of the folder `newman run --folder` plays in a test. */
const HAPPY_PATH_FOLDER = 'Happy path';

const LooseObject = z.looseObject({});

/** What the OpenAPI document says the export is: a Postman v2.1 collection (not in an envelope). */
export const PostmanCollectionSchema = z
  .looseObject({
    info: z.looseObject({ name: z.string(), description: z.string().optional(), schema: z.literal(POSTMAN_SCHEMA_URL) }),
    item: z
      .array(z.looseObject({ name: z.string(), item: z.array(LooseObject).optional() }))
      .meta({ description: 'the Happy path folder, then a folder per tag of /v1' }),
    variable: z.array(z.looseObject({ key: z.string(), value: z.string() })).meta({
      description:
        'baseUrl, clientId, environment, publicKey, secretKey, encryptionKey, and what the Happy path passes along: quoteId, quoteAmount, orderReference',
    }),
    event: z.array(LooseObject).meta({ description: 'the collection-level pre-request script that signs each request (spec §5.2)' }),
    auth: LooseObject.optional(),
  })
  .meta({ id: 'PostmanCollection', description: 'Postman Collection Format v2.1.0' });

/** A Postman v2.1 collection, as made here (a subset of the format). */
export interface PostmanCollection {
  info: { name: string; description: string; schema: typeof POSTMAN_SCHEMA_URL };
  item: PostmanFolder[];
  variable: PostmanVariable[];
  event: PostmanEvent[];
  auth: { type: 'bearer'; bearer: PostmanVariable[] };
}
export interface PostmanFolder {
  name: string;
  description?: string;
  item: PostmanItem[];
}
export interface PostmanItem {
  name: string;
  request: PostmanRequest;
  event?: PostmanEvent[];
}
export interface PostmanRequest {
  method: string;
  description?: string;
  header: Array<{ key: string; value: string }>;
  url: {
    raw: string;
    host: string[];
    path: string[];
    query?: Array<{ key: string; value: string; disabled?: boolean; description?: string }>;
    variable?: Array<{ key: string; value: string; description?: string }>;
  };
  body?: { mode: 'raw'; raw: string; options: { raw: { language: 'json' } } };
}
export interface PostmanVariable {
  key: string;
  value: string;
  type: 'string';
  description?: string;
}
export interface PostmanEvent {
  listen: 'prerequest' | 'test';
  script: { type: 'text/javascript'; exec: string[] };
}

/** The partner whose credentials the collection carries, in one environment. */
export interface PostmanPartner {
  clientId: string;
  environment: Environment;
  keys: { public_key: string; secret_key: string; encryption_key: string };
}

/** The bodies of the Happy path folder: valid in the partner's environment. */
export interface HappyPathBodies {
  /** Create quote: the legs of an order the environment supports. */
  quote: unknown;
  /** Create order from `{{quoteId}}`: everything but the quote id (recipient, customer, …). */
  order: Record<string, unknown>;
}

export interface PostmanOptions {
  /** The OpenAPI document (GET /openapi.json), read as JSON. */
  document: unknown;
  /** Where the sandbox is: `http://127.0.0.1:4010`. */
  baseUrl: string;
  partner: PostmanPartner;
  happyPath: HappyPathBodies;
  /** ramp-sandbox's version, said in the description. */
  version: string;
  /**
   * A value for a path or query parameter of `path`: data of the partner's environment that a
   * request needs to succeed (a network there, a fiat code); undefined to use the document's
   * example, or else a value made from the parameter's schema.
   */
  sample?: (path: string, name: string) => string | undefined;
  /**
   * A request body of `method path` made valid in the partner's environment from the document's
   * example (whose networks are the test environment's); the example itself when undefined.
   */
  body?: (method: string, path: string, example: unknown) => unknown;
}

/**
 * The Postman v2.1 collection of the document's /v1 operations for `partner` (CONTRACT §19).
 * Bodies are the document's examples where it has them, else values made from their schemas.
 */
export function buildPostmanCollection(options: PostmanOptions): PostmanCollection {
  const { partner, baseUrl } = options;
  const doc = asRecord(options.document);
  const components = asRecord(doc.components);
  const folders = new Map<string, PostmanFolder>();
  for (const tag of asArray(doc.tags)) {
    const name = asRecord(tag).name;
    if (typeof name === 'string') folders.set(name, { name, item: [] });
  }
  for (const [path, pathItem] of Object.entries(asRecord(doc.paths))) {
    if (!path.startsWith('/v1/') && path !== '/v1') continue;
    for (const [method, raw] of Object.entries(asRecord(pathItem))) {
      if (!HTTP_METHODS.has(method)) continue;
      const operation = asRecord(raw);
      const tag = String(asArray(operation.tags)[0] ?? 'Other');
      const folder = folders.get(tag) ?? { name: tag, item: [] };
      folders.set(tag, folder);
      folder.item.push(operationItem(path, method.toUpperCase(), operation, components, options));
    }
  }
  // An operation that ends the order (cancel) goes last in its folder: the requests before it
  // act on an order still open (issue 6).
  for (const folder of folders.values()) folder.item.sort((a, b) => Number(endsOrder(a)) - Number(endsOrder(b)));
  const tagFolders = [...folders.values()].filter((f) => f.item.length > 0);
  const variables: PostmanVariable[] = [
    variable('baseUrl', baseUrl, 'the sandbox'),
    variable('clientId', partner.clientId, 'svc-client-id: the partner reference (spec §5)'),
    variable('environment', partner.environment, 'the environment of the keys below (test or live)'),
    variable('publicKey', partner.keys.public_key, 'public key (pk_*): read routes, no signature (spec §5.1)'),
    variable('secretKey', partner.keys.secret_key, 'secret key (sk_*): sent as Authorization: Bearer on every request here (spec §5.2)'),
    variable(
      'encryptionKey',
      partner.keys.encryption_key,
      'encryption key (enc_*): keys the HMAC of svc-signature; never sent (spec §5.2)',
    ),
    variable('quoteId', '', 'set by the Happy path: the quote it created'),
    variable('quoteAmount', '', 'set by the Happy path: what its quote says the customer pays in'),
    variable('orderReference', '', 'set by the Happy path: the order it created'),
  ];
  return {
    info: {
      name: `ramp-sandbox Partner Order API (${partner.environment}, ${partner.clientId})`,
      description: [
        `The /v1 routes of ramp-sandbox ${options.version}, generated from its OpenAPI document (GET /openapi.json), for partner ${partner.clientId} with its ${partner.environment} keys.`,
        '',
        'A collection-level pre-request script signs every request per spec §5.2: svc-client-id, svc-timestamp (ms) and svc-signature, `sha256=` + hex HMAC-SHA256 of `clientId|timestamp|METHOD|path|rawBody` keyed with {{encryptionKey}}; the collection sends {{secretKey}} as the bearer token.',
        '',
        `Run the "${HAPPY_PATH_FOLDER}" folder first: it creates a quote and an order from it, reads the order back and cancels it, and leaves {{quoteId}} and {{orderReference}} set for the other requests. The Orders folder's "create an order" sets {{orderReference}} to the order it makes, so the requests after it (get, fulfil, then cancel, last) act on that one.`,
      ].join('\n'),
      schema: POSTMAN_SCHEMA_URL,
    },
    item: [happyPathFolder(options), ...tagFolders],
    variable: variables,
    event: [{ listen: 'prerequest', script: { type: 'text/javascript', exec: SIGNING_SCRIPT } }],
    auth: { type: 'bearer', bearer: [{ key: 'token', value: '{{secretKey}}', type: 'string' }] },
  };
}

/**
 * The collection-level pre-request script (spec §5.2), for Postman's script sandbox. What it signs
 * is what is sent: the body with its variables resolved once and written back (so a dynamic
 * variable such as {{$guid}} is not drawn a second time when the request goes out), and the path
 * with `/v1` and the enabled query parameters, variables resolved.
 */
const SIGNING_SCRIPT: string[] = [
  '// ramp-sandbox: signs every request per spec §5.2 (secret key requests).',
  "const cryptoJs = require('crypto-js');",
  "const clientId = pm.variables.replaceIn('{{clientId}}');",
  "const encryptionKey = pm.variables.replaceIn('{{encryptionKey}}');",
  '// Unix time in milliseconds, as a string (seconds are refused).',
  'const timestamp = String(Date.now());', // wall: the clock of the Postman runner this script text runs in
  '// The exact body string sent: variables resolved once, then written back so it is what goes out.',
  "let rawBody = '';",
  "if (pm.request.body && pm.request.body.mode === 'raw' && pm.request.body.raw) {",
  '  rawBody = pm.variables.replaceIn(pm.request.body.raw);',
  "  pm.request.body.update({ mode: 'raw', raw: rawBody, options: { raw: { language: 'json' } } });",
  '}',
  '// The full path with /v1 and the query string as Postman sends them: variables resolved, then',
  '// percent-encoded (UTF-8, upper case) where a URL cannot hold a character as it is, what is',
  '// already encoded kept; switched-off query parameters are neither sent nor signed.',
  'const encode = (text, also) => text.replace(/%[0-9A-Fa-f]{2}|[\\s\\S]/gu, (c) => {',
  "  if (c.length === 3 && c[0] === '%') return c;",
  '  const code = c.codePointAt(0);',
  '  if (code > 0x7e) return encodeURIComponent(c);',
  "  return code < 0x20 || also.includes(c) ? '%' + code.toString(16).toUpperCase().padStart(2, '0') : c;",
  '});',
  'const url = pm.request.url;',
  "let path = encode(pm.variables.replaceIn(url.getPath()), ' \"<>`#?{}');",
  'const query = url.query.all().filter((p) => !p.disabled).map((p) => {',
  "  const key = encode(pm.variables.replaceIn(p.key == null ? '' : p.key), ' \"#\\'<>&=');",
  "  return p.value == null ? key : key + '=' + encode(pm.variables.replaceIn(p.value), ' \"#\\'<>&');",
  '});',
  "if (query.length) path += '?' + query.join('&');",
  "const canonical = [clientId, timestamp, pm.request.method.toUpperCase(), path, rawBody].join('|');",
  "const signature = 'sha256=' + cryptoJs.HmacSHA256(canonical, encryptionKey).toString(cryptoJs.enc.Hex);",
  "pm.request.headers.upsert({ key: 'svc-client-id', value: clientId });",
  "pm.request.headers.upsert({ key: 'svc-timestamp', value: timestamp });",
  "pm.request.headers.upsert({ key: 'svc-signature', value: signature });",
];

const HTTP_METHODS: ReadonlySet<string> = new Set(['get', 'post', 'put', 'patch', 'delete']);

function happyPathFolder(options: PostmanOptions): PostmanFolder {
  const { happyPath } = options;
  const json = (value: unknown) => JSON.stringify(value, null, 2);
  const order = { quote_id: '{{quoteId}}', merchant_reference: 'postman-{{$guid}}', ...happyPath.order };
  return {
    name: HAPPY_PATH_FOLDER,
    description:
      'Quote, create the order from the quote, read it back, cancel it: each request checks its answer and passes what the next needs along in collection variables.',
    item: [
      {
        name: 'Create a quote',
        request: request('POST', '/v1/orders/quote', { body: json(happyPath.quote) }),
        event: [
          tests([
            "pm.test('the quote is created', () => pm.response.to.have.status(200));",
            'const body = pm.response.json();',
            "pm.test('it has a quote id', () => {",
            '  pm.expect(body.status).to.eql(true);',
            "  pm.expect(body.data.quote_id).to.be.a('string');",
            '});',
            "pm.collectionVariables.set('quoteId', body.data.quote_id);",
            "pm.collectionVariables.set('quoteAmount', String(body.data.from.amount));",
          ]),
        ],
      },
      {
        name: 'Create an order from the quote',
        request: request('POST', '/v1/orders', { body: json(order) }),
        event: [
          tests([
            "pm.test('the order is created', () => pm.response.to.have.status(200));",
            'const body = pm.response.json();',
            "pm.test('it awaits the payment the quote priced', () => {",
            "  pm.expect(body.data.status).to.eql('awaiting_user_payment');",
            "  pm.expect(body.data.payin.amount).to.eql(Number(pm.collectionVariables.get('quoteAmount')));",
            '});',
            "pm.collectionVariables.set('orderReference', body.data.reference);",
          ]),
        ],
      },
      {
        name: 'Get the order',
        request: request('GET', '/v1/orders/{reference}', { query: [{ key: 'include', value: 'payout,timeline' }] }),
        event: [
          tests([
            "pm.test('the order is found', () => pm.response.to.have.status(200));",
            'const body = pm.response.json();',
            "pm.test('it is the order just created, with its timeline', () => {",
            "  pm.expect(body.data.reference).to.eql(pm.collectionVariables.get('orderReference'));",
            "  pm.expect(body.data.status).to.eql('awaiting_user_payment');",
            "  pm.expect(body.data.timeline).to.be.an('array');",
            '});',
          ]),
        ],
      },
      {
        name: 'Cancel the order',
        request: request('PATCH', '/v1/orders/{reference}/cancel', { body: json({ reason: 'cancelled by the Postman happy path' }) }),
        event: [
          tests([
            "pm.test('the order is cancelled', () => pm.response.to.have.status(200));",
            'const body = pm.response.json();',
            "pm.test('its status is cancelled', () => {",
            "  pm.expect(body.data.reference).to.eql(pm.collectionVariables.get('orderReference'));",
            "  pm.expect(body.data.status).to.eql('cancelled');",
            '});',
          ]),
        ],
      },
    ],
  };
}

function operationItem(
  path: string,
  method: string,
  operation: Record<string, unknown>,
  components: Record<string, unknown>,
  options: PostmanOptions,
): PostmanItem {
  const query: NonNullable<PostmanRequest['url']['query']> = [];
  const pathValues: Record<string, { value: string; description?: string }> = {};
  for (const raw of asArray(operation.parameters)) {
    const parameter = asRecord(resolve(raw, components));
    const name = parameter.name;
    if (typeof name !== 'string') continue;
    const description = typeof parameter.description === 'string' ? parameter.description : undefined;
    const value = parameterValue(path, name, parameter, components, options.sample);
    if (parameter.in === 'path') pathValues[name] = { value, ...(description ? { description } : {}) };
    else if (parameter.in === 'query') {
      query.push({ key: name, value, ...(parameter.required === true ? {} : { disabled: true }), ...(description ? { description } : {}) });
    }
  }
  const content = asRecord(asRecord(asRecord(operation.requestBody).content)['application/json']);
  const creates = method === 'POST' && path === '/v1/orders';
  let example = Object.keys(content).length > 0 ? mediaExample(content, components) : undefined;
  if (example !== undefined && options.body) example = options.body(method, path, example);
  // Create order: a merchant_reference of its own each run (a second run would be a 409), and
  // the order it makes is the one the folder's later requests act on (issue 6), not the order
  // the Happy path already cancelled.
  if (creates && example !== null && typeof example === 'object' && 'merchant_reference' in example)
    example = { ...example, merchant_reference: 'postman-{{$guid}}' };
  const body = example === undefined ? undefined : JSON.stringify(example, null, 2);
  const summary = typeof operation.summary === 'string' ? operation.summary : `${method} ${path}`;
  const lines = [
    typeof operation.description === 'string' ? operation.description : summary,
    '',
    `${method} ${path} (operationId ${String(operation.operationId)})`,
  ];
  return {
    name: summary,
    request: request(method, path, { query, pathValues, description: lines.join('\n'), ...(body === undefined ? {} : { body }) }),
    ...(creates
      ? {
          event: [
            tests([
              "pm.test('the order is created', () => pm.response.to.have.status(200));",
              "if (pm.response.code === 200) pm.collectionVariables.set('orderReference', pm.response.json().data.reference);",
            ]),
          ],
        }
      : {}),
  };
}

/** Whether the item cancels an order (PATCH …/cancel), after which the order takes no other step. */
const endsOrder = (item: PostmanItem) => item.request.method === 'PATCH' && item.request.url.path.at(-1) === 'cancel';

function request(
  method: string,
  path: string,
  parts: {
    body?: string;
    query?: NonNullable<PostmanRequest['url']['query']>;
    pathValues?: Record<string, { value: string; description?: string }>;
    description?: string;
  },
): PostmanRequest {
  const segments = path
    .split('/')
    .filter(Boolean)
    .map((s) => s.replace(/^\{(\w+)\}$/, ':$1'));
  const variables = segments
    .filter((s) => s.startsWith(':'))
    .map((s) => {
      const key = s.slice(1);
      const given = parts.pathValues?.[key];
      // An order reference is the one the Happy path created.
      const value = key === 'reference' ? '{{orderReference}}' : (given?.value ?? '');
      return { key, value, ...(given?.description ? { description: given.description } : {}) };
    });
  const query = parts.query ?? [];
  const enabled = query.filter((q) => !q.disabled).map((q) => `${q.key}=${q.value}`);
  const out: PostmanRequest = {
    method,
    header: parts.body === undefined ? [] : [{ key: 'Content-Type', value: 'application/json' }],
    url: {
      raw: `{{baseUrl}}/${segments.join('/')}${enabled.length ? `?${enabled.join('&')}` : ''}`,
      host: ['{{baseUrl}}'],
      path: segments,
      ...(query.length ? { query } : {}),
      ...(variables.length ? { variable: variables } : {}),
    },
  };
  if (parts.description) out.description = parts.description;
  if (parts.body !== undefined) out.body = { mode: 'raw', raw: parts.body, options: { raw: { language: 'json' } } };
  return out;
}

function parameterValue(
  path: string,
  name: string,
  parameter: Record<string, unknown>,
  components: Record<string, unknown>,
  sample: PostmanOptions['sample'],
): string {
  const given = sample?.(path, name);
  if (given !== undefined) return given;
  // An array (include) as one comma-separated value, the form spec §4.1 names.
  if (Array.isArray(parameter.example)) return parameter.example.map(scalar).join(',');
  if (parameter.example !== undefined) return scalar(parameter.example);
  const named = firstExample(parameter.examples);
  if (named !== undefined) return scalar(named);
  return scalar(sampleOf(parameter.schema, components));
}

function variable(key: string, value: string, description: string): PostmanVariable {
  return { key, value, type: 'string', description };
}

function tests(exec: string[]): PostmanEvent {
  return { listen: 'test', script: { type: 'text/javascript', exec } };
}

const scalar = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));
