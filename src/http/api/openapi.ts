import { getRefId, OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import * as z from 'zod';
import { documentationOf } from '../../shared/documented';
import { AuthErrorSchema, ErrorEnvelopeSchema, PageMetaSchema } from '../../shared/schemas';
import { errorStatuses, type AnyRouteSpec, type OpenApiDocument, type RouteAuth } from './api';
import { addExamples, portablePatterns } from './openapi-examples';

/** Spec §9: the interface description carries version 2.0.0. */
const API_VERSION = '2.0.0';

export interface WebhookSpec {
  event: string;
  summary: string;
  payload: z.ZodType;
}

const SECRET = { bearerKey: [], clientId: [], timestamp: [], signature: [] };
const SECURITY: Record<RouteAuth, Array<Record<string, string[]>>> = {
  none: [],
  // spec §5.1 public key, or §5.2 secret key with its HMAC headers
  read: [{ bearerKey: [], clientId: [] }, SECRET],
  secret: [SECRET],
  admin: [{ adminToken: [] }, {}],
  page: [],
};

/** The canonical string of spec §5.2 and §6.4, said once for the security schemes and webhooks. */
const CANONICAL = '`clientId|timestamp|METHOD|path|rawBody` (path with its query string; rawBody the exact bytes, empty without a body)';

/**
 * Every error answer, once (components.responses), with the headers it carries: the routes refer
 * to them by status, so no error envelope is written inline.
 */
const ERROR_RESPONSES: Record<string, { description: string; schema: string; headers?: Record<string, unknown> }> = {
  BadRequest: {
    description:
      'Bad request (E_BADREQUEST): malformed JSON, a malformed HTTP request (bad framing, no Host header), or a request that cannot be done (unknown currency, expired quote, a step the status does not allow …)',
    schema: 'Error',
  },
  Unauthorized: {
    description: 'Authentication failed (E_UNAUTHORIZED, or the spec §5.4 alternative body for a missing or unknown svc-client-id)',
    schema: 'AuthError',
    headers: {
      'svc-sandbox-hint': {
        description: 'On a refused signature: the canonical string the sandbox computed (never a key), to diff with yours (CONTRACT §3)',
        required: false,
        schema: {
          type: 'string',
          example:
            'prefix=ptr_acme%7C1768478400000%7CPOST%7C%2Fv1%2Forders%7C; body_sha256=9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08; body_length=4',
        },
      },
    },
  },
  AdminUnauthorized: {
    description: 'The control API needs `Authorization: Bearer <admin token>` when the sandbox has one (E_UNAUTHORIZED)',
    schema: 'Error',
  },
  Forbidden: {
    description:
      'Forbidden: account not KYB-approved (E_FORBIDDEN), caller outside the IP whitelist (E_IP_BLOCKED), or a public key on a secret-key route (the spec §5.4 alternative body)',
    schema: 'AuthError',
  },
  ControlForbidden: {
    description:
      "Forbidden (E_FORBIDDEN): a Host that is not the sandbox's own, or a cross-site request (CONTRACT §4); partner not KYB-approved where an order is made",
    schema: 'Error',
  },
  NotFound: { description: 'Not found (E_NOTFOUND): an unknown identifier in the path or query', schema: 'Error' },
  MethodNotAllowed: {
    description: 'Method not allowed (E_BADREQUEST): this path answers only the methods documented for it, listed in Allow',
    schema: 'Error',
    headers: { Allow: { description: 'The methods the path answers', required: true, schema: { type: 'string', example: 'GET, POST' } } },
  },
  Conflict: {
    description:
      'Conflict (E_CONFLICT): a duplicate merchant_reference, a quote already used, a clock already being advanced, a full store',
    schema: 'Error',
  },
  PayloadTooLarge: { description: 'Body over 1 MiB (E_BADREQUEST)', schema: 'Error' },
  RequestTimeout: { description: 'The request was not received in time (E_BADREQUEST); the connection closes', schema: 'Error' },
  HeadersTooLarge: {
    description: 'The request line and headers are larger than the server accepts, 16 KB (E_BADREQUEST); the connection closes',
    schema: 'Error',
  },
  UnsupportedMediaType: { description: 'A body without Content-Type: application/json (E_BADREQUEST)', schema: 'Error' },
  ValidationError: {
    description: 'Validation error (E_VALIDATION_ERROR): `<field.path>: <reason>`, naming the first failing field',
    schema: 'Error',
  },
  RateLimited: {
    description: "Rate limited (E_RATE_LIMITED): the key's token bucket is empty, or an injected 429",
    schema: 'Error',
    headers: {
      'Retry-After': {
        description: 'Seconds to wait before retrying',
        required: true,
        schema: { type: 'integer', minimum: 1, example: 1 },
      },
    },
  },
  SandboxFault: { description: 'An injected fault (E_SANDBOX_FAULT, CONTRACT §12): not a code of the real service', schema: 'Error' },
  StateNotSaved: { description: 'The state file could not be written (E_STATE_NOT_SAVED)', schema: 'Error' },
};

/** The error response a status refers to, by the kind of route. */
function errorResponse(status: number, spec: AnyRouteSpec): string {
  const partner = spec.auth === 'read' || spec.auth === 'secret';
  switch (status) {
    case 400:
      return 'BadRequest';
    case 401:
      return partner ? 'Unauthorized' : 'AdminUnauthorized';
    case 403:
      return partner ? 'Forbidden' : 'ControlForbidden';
    case 404:
      return 'NotFound';
    case 405:
      return 'MethodNotAllowed';
    case 409:
      return 'Conflict';
    case 408:
      return 'RequestTimeout';
    case 413:
      return 'PayloadTooLarge';
    case 431:
      return 'HeadersTooLarge';
    case 415:
      return 'UnsupportedMediaType';
    case 422:
      return 'ValidationError';
    case 429:
      return 'RateLimited';
    case 507:
      return 'StateNotSaved';
    default:
      return 'SandboxFault';
  }
}

/** Webhook delivery headers besides the signature (CONTRACT §5, spec §6.3). */
const webhookHeaders = (event: string) =>
  z.object({
    'svc-timestamp': z
      .string()
      .regex(/^[0-9]+$/)
      .meta({ description: 'Wall time of this attempt, Unix ms: reject stale ones (spec §6.4)', example: '1768478400000' }),
    'svc-event': z.literal(event).meta({ description: 'The event, as in the body' }),
    'svc-delivery-id': z.string().meta({
      description: "The delivery's id in the log (GET /sandbox/webhooks/deliveries/{id}); the same on every attempt",
      example: 'dlv_3kTq9ZbW1xY7cV2nM8pL',
    }),
    'svc-attempt': z
      .string()
      .regex(/^[1-9][0-9]*$/)
      .meta({ description: 'Which attempt of the delivery this is, from 1 (manual retries count)', example: '1' }),
  });

/**
 * The OpenAPI 3.1 document (CONTRACT §10, §19) of the given routes and webhook events, generated
 * from the same zod schemas that parse requests and type responses (or their `documentedAs`
 * form, where a schema enforces more than JSON Schema reads off it). Every request body and every
 * success envelope is a named component; errors refer to named responses with their headers.
 */
export function buildOpenApi(routes: readonly AnyRouteSpec[], webhooks: readonly WebhookSpec[], version: string): OpenApiDocument {
  // Generating takes a few hundred ms of one core; every app of a process (a test file starts
  // many) has the same routes and schemas, so it is made once and handed out as a copy.
  const key = fingerprint(routes, webhooks, version);
  const made = BUILT.get(key);
  if (made) return structuredClone(made);
  // generate() adds to the generator's document (examples, links, headers) past its declared type.
  const doc = generate(routes, webhooks, version) as unknown as OpenApiDocument;
  BUILT.set(key, doc);
  return structuredClone(doc);
}

/** Documents made in this process, by the fingerprint of what they were made from. */
const BUILT = new Map<string, OpenApiDocument>();
const SCHEMA_IDS = new WeakMap<object, number>();

/**
 * What a document depends on: every text and flag of the routes and webhooks, and their schemas
 * (an array by its element's, so `z.array(X)` made anew for each app is the same; a plain string
 * or void by its kind; any other schema by identity, as the modules make them once).
 */
function fingerprint(routes: readonly AnyRouteSpec[], webhooks: readonly WebhookSpec[], version: string): string {
  const schemaKey = (schema: z.ZodType | undefined): string => {
    if (schema === undefined) return '-';
    if (schema instanceof z.ZodArray) return `[${schemaKey(schema.element as z.ZodType)}]`;
    if (
      (schema instanceof z.ZodString || schema instanceof z.ZodVoid) &&
      schema.meta() === undefined &&
      !(schema instanceof z.ZodString && schema.def.checks?.length)
    )
      return schema.def.type;
    let id = SCHEMA_IDS.get(schema);
    if (id === undefined) SCHEMA_IDS.set(schema, (id = SCHEMA_IDS_NEXT.n++));
    return `#${id}`;
  };
  return JSON.stringify([
    version,
    routes.map((r) => [
      r.method,
      r.path,
      r.operationId,
      r.summary,
      r.description,
      r.tag,
      r.auth,
      r.errors,
      r.paged,
      r.html,
      r.media,
      r.successStatus,
      r.message,
      schemaKey(r.params),
      schemaKey(r.query),
      schemaKey(r.body),
      schemaKey(r.data),
    ]),
    webhooks.map((w) => [w.event, w.summary, schemaKey(w.payload)]),
  ]);
}
const SCHEMA_IDS_NEXT = { n: 1 };

function generate(routes: readonly AnyRouteSpec[], webhooks: readonly WebhookSpec[], version: string): Record<string, unknown> {
  const registry = new OpenAPIRegistry();
  registerSecuritySchemes(registry);
  for (const [name, r] of Object.entries(ERROR_RESPONSES)) {
    registry.registerComponent('responses', name, {
      description: r.description,
      ...(r.headers ? { headers: r.headers as never } : {}),
      content: { 'application/json': { schema: { $ref: `#/components/schemas/${r.schema}` } } },
    });
  }

  const operations = new Set(routes.map((r) => r.operationId));
  for (const spec of routes) {
    const responses: Record<string, unknown> = { [spec.successStatus ?? 200]: successResponse(spec, routes, operations) };
    for (const status of [...errorStatuses(spec), 405].sort((a, b) => a - b)) {
      // A 304 (an asset's If-None-Match matched its ETag) has no body.
      if (status === 304) {
        responses[status] = { description: 'Not Modified: If-None-Match matched the ETag' };
        continue;
      }
      responses[status] = { $ref: `#/components/responses/${errorResponse(status, spec)}` };
    }
    registry.registerPath({
      method: spec.method.toLowerCase() as 'get',
      path: spec.path,
      operationId: spec.operationId,
      summary: spec.summary,
      ...(spec.description ? { description: spec.description } : {}),
      tags: [spec.tag],
      security: SECURITY[spec.auth],
      request: {
        ...(spec.params ? { params: spec.params as z.ZodObject } : {}),
        ...(spec.query ? { query: spec.query as z.ZodObject } : {}),
        ...(spec.body
          ? {
              body: {
                required: true,
                content: { 'application/json': { schema: named(documentationOf(spec.body), `${pascal(spec.operationId)}Body`) } },
              },
            }
          : {}),
      },
      responses: responses as never,
    });
  }

  for (const hook of webhooks) {
    registry.registerWebhook({
      method: 'post',
      path: hook.event,
      operationId: `webhook_${hook.event.replace('.', '_')}`,
      summary: hook.summary,
      tags: ['Webhooks'],
      description: `Sent to the partner's webhook_url, signed per spec §6.4 (security scheme webhookSignature). Answer 2xx within 15 s; any other answer, or none, is retried on the virtual clock after 5 s, 5 m, 30 m, 2 h, 5 h, 10 h and 10 h (CONTRACT §5). Deliveries are at least once: \`data.reference\` and \`event\` together are the idempotency key.`,
      security: [{ webhookSignature: [] }],
      request: { headers: webhookHeaders(hook.event), body: { required: true, content: { 'application/json': { schema: hook.payload } } } },
      responses: {
        '2XX': { description: 'Any 2xx acknowledges the delivery' },
        '4XX': { description: 'Not acknowledged (a bad signature, say): the delivery is retried' },
        '5XX': { description: 'Not acknowledged: the delivery is retried' },
      } as never,
    });
  }

  // The error bodies are generated as components of their own: the error responses refer to them.
  const doc = new OpenApiGeneratorV31(
    [...registry.definitions, { type: 'schema', schema: ErrorEnvelopeSchema }, { type: 'schema', schema: AuthErrorSchema }],
    { unionPreferredType: 'oneOf' },
  ).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Partner Order API (ramp-sandbox)',
      version: API_VERSION,
      description: `The Partner Order API (/v1) as simulated by ramp-sandbox ${version}, and the sandbox's own control API (tag sandbox). Errors use the envelope {status:false, code, message}. A request this document allows is not refused for its shape; see docs/openapi.md for what it guarantees.`,
    },
    servers: [{ url: '/', description: 'This sandbox' }],
    tags: [
      { name: 'Health', description: 'Liveness, no authentication' },
      {
        name: 'Reference data',
        description: 'Spec §4.2: networks, currencies, institutions, account lookup and rates (public or secret key)',
      },
      { name: 'Orders', description: 'Spec §4.1: quotes and orders (secret key with HMAC)' },
      { name: 'sandbox', description: 'The sandbox control API (CONTRACT §4, §11–§16): not part of the real service' },
      { name: 'Webhooks', description: "Spec §6: what the sandbox POSTs to the partner's webhook_url" },
    ],
  }) as unknown as Record<string, unknown>;
  portablePatterns(doc);
  addExamples(doc);
  return doc;
}

function registerSecuritySchemes(registry: OpenAPIRegistry): void {
  registry.registerComponent('securitySchemes', 'bearerKey', {
    type: 'http',
    scheme: 'bearer',
    description: 'spec §5: `Bearer pk_*` (public key, read routes) or `Bearer sk_*` (secret key)',
  });
  registry.registerComponent('securitySchemes', 'clientId', {
    type: 'apiKey',
    in: 'header',
    name: 'svc-client-id',
    description: 'the partner reference (client id)',
  });
  registry.registerComponent('securitySchemes', 'timestamp', {
    type: 'apiKey',
    in: 'header',
    name: 'svc-timestamp',
    description: "Unix time in ms, as a string (secret-key requests; within ±300 s of the server's wall clock)",
  });
  registry.registerComponent('securitySchemes', 'signature', {
    type: 'apiKey',
    in: 'header',
    name: 'svc-signature',
    description: `spec §5.2: \`sha256=\` + lowercase hex HMAC-SHA256 of ${CANONICAL}, keyed with the enc_* key (never the secret key). A refused signature is answered with the svc-sandbox-hint header.`,
  });
  registry.registerComponent('securitySchemes', 'adminToken', {
    type: 'http',
    scheme: 'bearer',
    description: 'the sandbox admin token (--admin-token), when one is set',
  });
  registry.registerComponent('securitySchemes', 'webhookSignature', {
    type: 'apiKey',
    in: 'header',
    name: 'svc-signature',
    description:
      "spec §6.4, on deliveries to the partner: `sha256=` + lowercase hex HMAC-SHA256 of `clientId|svc-timestamp|POST|path|rawBody` (path: the pathname and query of the webhook URL; rawBody: the body exactly as received), keyed with the enc_* key of the order's environment. Compare in constant time; reject stale svc-timestamp values.",
  });
}

/** The success answer of a route: its named envelope, or the media it serves, with links and headers. */
function successResponse(spec: AnyRouteSpec, routes: readonly AnyRouteSpec[], operations: ReadonlySet<string>): Record<string, unknown> {
  if (spec.html) return { description: spec.message, content: { 'text/html': { schema: z.string() } } };
  if (spec.media) {
    const redirect = spec.successStatus !== undefined && spec.successStatus >= 300 && spec.successStatus < 400;
    return {
      description: spec.message,
      ...(redirect
        ? {
            headers: {
              Location: { description: 'Where to go', required: true, schema: { type: 'string', example: '/sandbox/dashboard' } },
            },
          }
        : {}),
      // A JSON document answered as it is, not in an envelope (the exports, CONTRACT §19), is its `data`.
      ...(spec.media.length
        ? { content: Object.fromEntries(spec.media.map((m) => [m, { schema: m === 'application/json' ? spec.data : z.string() }])) }
        : {}),
    };
  }
  const links = linksOf(spec, routes, operations);
  return {
    description: spec.message,
    content: { 'application/json': { schema: envelopeOf(spec) } },
    ...(Object.keys(links).length ? { links } : {}),
  };
}

const ENVELOPES = new WeakMap<z.ZodType, Map<string, z.ZodType>>();

/**
 * The named success envelope of a route (spec §2.1): `<Data>Response` around one item,
 * `<Data>ListResponse` around an array, `<Data>Page` around a page with its `meta`; shared by
 * every route that answers the same data.
 */
function envelopeOf(spec: AnyRouteSpec): z.ZodType {
  let data = documentationOf(spec.data);
  let list = spec.paged ?? false;
  if (!list && data instanceof z.ZodArray) {
    data = documentationOf(data.element as z.ZodType);
    list = true;
  }
  const dataName = getRefId(data) ?? pascal(spec.operationId);
  const id = spec.paged ? `${dataName}Page` : list ? `${dataName}ListResponse` : `${dataName}Response`;
  const cache = ENVELOPES.get(data) ?? new Map<string, z.ZodType>();
  ENVELOPES.set(data, cache);
  let envelope = cache.get(id);
  if (!envelope) {
    const base = {
      status: z.literal(true),
      message: z.string().meta({ example: spec.message }),
      data: list ? z.array(data) : data,
    };
    envelope = (spec.paged ? z.object({ ...base, meta: PageMetaSchema }) : z.object(base)).meta({
      id,
      description: spec.paged ? 'Spec §2.1 success envelope with one page and its meta' : 'Spec §2.1 success envelope',
    });
    cache.set(id, envelope);
  }
  return envelope;
}

/** `schema` with a component name: its own, or `fallback`. */
function named(schema: z.ZodType, fallback: string): z.ZodType {
  return getRefId(schema) ? schema : schema.meta({ id: fallback });
}

/**
 * Links from an answer that makes something (CONTRACT §19): from `POST <collection>` to every
 * operation on `<collection>/{x}` and below, where `x` is a field of the data made (create order
 * → get, cancel, fulfil; create partner → get, update, rotate keys), and from a sent webhook to
 * its delivery. A stateful fuzzer follows them from a made resource to what can be done to it.
 */
function linksOf(spec: AnyRouteSpec, routes: readonly AnyRouteSpec[], operations: ReadonlySet<string>): Record<string, unknown> {
  const links: Record<string, unknown> = {};
  if (spec.method !== 'POST' || spec.path.includes('{')) return links;
  const fields = new Set(Object.keys(shapeOf(documentationOf(spec.data))));
  const bases = [spec.path, ...(spec.operationId === 'sendWebhook' ? ['/sandbox/webhooks/deliveries'] : [])];
  for (const target of routes) {
    if (target === spec || !operations.has(target.operationId)) continue;
    for (const base of bases) {
      const m = new RegExp(`^${base.replace(/[.*+?^$()|[\]\\]/g, '\\$&')}/\\{(\\w+)\\}(?:/|$)`).exec(target.path);
      const param = m?.[1];
      if (param === undefined || !fields.has(param) || /\{/.test(target.path.slice(m![0].length))) continue;
      links[pascal(target.operationId)] = {
        operationId: target.operationId,
        parameters: { [param]: `$response.body#/data/${param}` },
        description: `${target.summary} (${param} from the answer)`,
      };
    }
  }
  return links;
}

/** The fields of an object schema, or of every variant of a union of objects. */
function shapeOf(schema: z.ZodType): Record<string, unknown> {
  if (schema instanceof z.ZodObject) return schema.shape;
  if (schema instanceof z.ZodUnion) return Object.assign({}, ...schema.options.map((o) => shapeOf(o as z.ZodType)));
  return {};
}

const pascal = (id: string) => id.charAt(0).toUpperCase() + id.slice(1);
