import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { AuthErrorSchema, ErrorEnvelopeSchema, successEnvelope } from '../shared/schemas';
import { errorStatuses, type AnyRouteSpec, type RouteAuth } from './api';

/** Spec §9: the interface description carries version 2.0.0. */
export const API_VERSION = '2.0.0';

export interface WebhookSpec {
  event: string;
  summary: string;
  payload: z.ZodType;
}

const SECURITY: Record<RouteAuth, Array<Record<string, string[]>>> = {
  none: [],
  // spec §5.1 public key, or §5.2 secret key with its HMAC headers
  read: [
    { bearerKey: [], clientId: [] },
    { bearerKey: [], clientId: [], timestamp: [], signature: [] },
  ],
  secret: [{ bearerKey: [], clientId: [], timestamp: [], signature: [] }],
  admin: [{ adminToken: [] }, {}],
  page: [],
};

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad request (E_BADREQUEST): malformed JSON, or a request that cannot be done',
  401: 'Authentication failed (E_UNAUTHORIZED, or the spec §5.4 alternative body)',
  403: 'Forbidden (E_FORBIDDEN, E_IP_BLOCKED, or the alternative body for a public key on a secret route)',
  404: 'Not found (E_NOTFOUND)',
  405: 'Method not allowed (E_BADREQUEST, with Allow)',
  409: 'Conflict (E_CONFLICT)',
  413: 'Body over 1 MiB (E_BADREQUEST)',
  415: 'Body without Content-Type: application/json (E_BADREQUEST)',
  422: 'Validation error (E_VALIDATION_ERROR): `<field>: <reason>`',
  429: 'Rate limited (E_RATE_LIMITED), or an injected 429; Retry-After in seconds',
  500: 'Injected fault (E_SANDBOX_FAULT)',
  502: 'Injected fault (E_SANDBOX_FAULT)',
  503: 'Injected fault (E_SANDBOX_FAULT)',
  504: 'Injected fault (E_SANDBOX_FAULT)',
};

/**
 * The OpenAPI 3.1 document (CONTRACT §10) of the given routes and webhook events, generated
 * from the same zod schemas that parse requests and type responses.
 */
export function buildOpenApi(routes: readonly AnyRouteSpec[], webhooks: readonly WebhookSpec[], version: string) {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'bearerKey', {
    type: 'http',
    scheme: 'bearer',
    description: 'spec §5: `Bearer pk_*` (public key, read routes) or `Bearer sk_*` (secret key)',
  });
  registry.registerComponent('securitySchemes', 'clientId', { type: 'apiKey', in: 'header', name: 'svc-client-id', description: 'the partner reference' });
  registry.registerComponent('securitySchemes', 'timestamp', { type: 'apiKey', in: 'header', name: 'svc-timestamp', description: 'Unix time in ms (secret-key requests)' });
  registry.registerComponent('securitySchemes', 'signature', {
    type: 'apiKey',
    in: 'header',
    name: 'svc-signature',
    description: 'spec §5.2: `sha256=` + hex HMAC-SHA256 of `clientId|timestamp|METHOD|path|rawBody`, keyed with enc_*',
  });
  registry.registerComponent('securitySchemes', 'adminToken', {
    type: 'http',
    scheme: 'bearer',
    description: 'the sandbox admin token (--admin-token), when one is set',
  });

  for (const spec of routes) {
    const responses: Record<string, { description: string; content?: Record<string, { schema: z.ZodType }> }> = {
      [spec.successStatus ?? 200]: spec.html
        ? { description: spec.message, content: { 'text/html': { schema: z.string() } } }
        : spec.media
          ? // A JSON document answered as it is, not in an envelope (the exports, CONTRACT §19), is its `data`.
            { description: spec.message, ...(spec.media.length ? { content: Object.fromEntries(spec.media.map((m) => [m, { schema: m === 'application/json' ? spec.data : z.string() }])) } : {}) }
          : { description: spec.message, content: { 'application/json': { schema: successEnvelope(spec.paged ? z.array(spec.data) : spec.data, spec.paged) } } },
    };
    for (const status of errorStatuses(spec)) {
      // A 304 (an asset's If-None-Match matched its ETag) has no body.
      if (status === 304) {
        responses[status] = { description: 'Not Modified: If-None-Match matched the ETag' };
        continue;
      }
      responses[status] = {
        description: STATUS_TEXT[status] ?? 'Error',
        content: { 'application/json': { schema: status === 401 || status === 403 ? AuthErrorSchema : ErrorEnvelopeSchema } },
      };
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
        ...(spec.body ? { body: { required: true, content: { 'application/json': { schema: spec.body } } } } : {}),
      },
      responses,
    });
  }

  for (const hook of webhooks) {
    registry.registerWebhook({
      method: 'post',
      path: hook.event,
      operationId: `webhook_${hook.event.replace('.', '_')}`,
      summary: hook.summary,
      tags: ['Webhooks'],
      description:
        'Signed per spec §6.4: `svc-signature` is `sha256=` + hex HMAC-SHA256 of `clientId|svc-timestamp|POST|path|rawBody` keyed with enc_*. Answer 2xx within 15 s; other answers are retried (CONTRACT §5).',
      request: { body: { required: true, content: { 'application/json': { schema: hook.payload } } } },
      responses: { 200: { description: 'Any 2xx acknowledges the delivery' } },
    });
  }

  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Partner Order API (ramp-sandbox)',
      version: API_VERSION,
      description: `The Partner Order API (/v1) as simulated by ramp-sandbox ${version}, and the sandbox's own control API (tag sandbox). Errors use the envelope {status:false, code, message}.`,
    },
    servers: [{ url: '/' }],
    tags: [
      { name: 'Health' },
      { name: 'Reference data' },
      { name: 'Orders' },
      { name: 'sandbox', description: 'The sandbox control API (CONTRACT §4, §11–§15): not part of the real service' },
      { name: 'Webhooks' },
    ],
  });
}
