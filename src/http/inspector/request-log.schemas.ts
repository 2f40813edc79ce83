// The request inspector's entries as the control API shows them (CONTRACT §11): what an entry
// keeps of a request, and the query that filters them. The ring that holds them is
// request-log.ts; how a request becomes one is request-log.record.ts.
import * as z from 'zod';
import { ENVIRONMENTS } from '../../reference';
import { DateTime, pageQueryParam } from '../../shared/schemas';

/** CONTRACT §11: bodies are kept up to this many characters. */
export const BODY_EXCERPT = 4096;
/** Other strings a request brings (path, client id, header values, messages) are kept up to this. */
export const FIELD_EXCERPT = 2048;
/** The request headers the inspector keeps (`maskedHeaders` masks the key material). */
export const SHOWN_HEADERS = [
  'svc-client-id',
  'svc-timestamp',
  'svc-signature',
  'authorization',
  'content-type',
  'content-length',
  'x-request-id',
  'user-agent',
];
/** The answer's headers the inspector keeps: what the body is, and those a client acts on. */
export const SHOWN_RESPONSE_HEADERS = [
  'content-type',
  'content-length',
  'retry-after',
  'allow',
  'location',
  'x-request-id',
  'svc-sandbox-hint',
];

/** One recorded /v1 request, as `GET /sandbox/requests` shows it (CONTRACT §11). */
export const RecordedRequestSchema = z
  .object({
    id: z.string(),
    at: DateTime.meta({ description: 'wall time' }),
    virtual_at: DateTime,
    method: z.string(),
    path: z.string().meta({ description: 'with the query string' }),
    status: z.number().int(),
    code: z.string().optional(),
    message: z.string().optional(),
    duration_ms: z.number().nonnegative(),
    client_id: z.string().optional().meta({ description: 'the authenticated partner, else the svc-client-id sent' }),
    environment: z.enum(ENVIRONMENTS).optional(),
    auth: z.enum(['public', 'secret', 'none', 'failed']),
    hint: z.string().optional().meta({ description: 'the svc-sandbox-hint of a failed signature check' }),
    fault: z.string().optional().meta({ description: 'the id of the injected fault' }),
    headers: z.record(z.string(), z.string()).meta({ description: 'request headers; authorization and svc-signature masked' }),
    response_headers: z
      .record(z.string(), z.string())
      .optional()
      .meta({ description: `the answer's ${SHOWN_RESPONSE_HEADERS.join(', ')} headers, when it had them` }),
    request_body: z
      .string()
      .optional()
      .meta({ description: `the first ${BODY_EXCERPT} characters` }),
    response_body: z
      .string()
      .optional()
      .meta({ description: `the first ${BODY_EXCERPT} characters` }),
  })
  .meta({ id: 'RecordedRequest' });
export type RecordedRequest = z.output<typeof RecordedRequestSchema>;

export const RequestsQuerySchema = z.object({
  client_id: z.string().optional(),
  environment: z.enum(ENVIRONMENTS).optional(),
  status: z
    .string()
    .regex(/^(?:[1-5][0-9][0-9]|[1-5]xx)$/, 'must be an HTTP status (401) or a class (4xx)')
    .optional()
    .meta({ example: '4xx' }),
  path: z.string().optional().meta({ description: 'part of the path' }),
  q: z
    .string()
    .max(200, 'must be at most 200 characters')
    .optional()
    .meta({ description: 'a request id (req_…), or text the path or either body contains (an order reference, say)' }),
  page: pageQueryParam('page', 1_000_000, 1),
  per_page: z
    .string()
    .regex(/^\d+$/, 'must be an integer from 1 to 1000')
    .transform(Number)
    .refine((n) => n >= 1 && n <= 1000, 'must be an integer from 1 to 1000')
    .optional()
    .meta({ type: 'integer', minimum: 1, maximum: 1000, example: 50, description: 'requests a page (default 50, at most 1000)' }),
  limit: z
    .string()
    .regex(/^[0-9]+$/, 'must be an integer from 1 to 1000')
    .transform(Number)
    .refine((n) => n >= 1 && n <= 1000, 'must be an integer from 1 to 1000')
    .optional()
    .meta({
      type: 'integer',
      minimum: 1,
      maximum: 1000,
      example: 50,
      description: 'the same as per_page (per_page wins when both are given)',
    }),
});
export type RequestsQuery = z.output<typeof RequestsQuerySchema>;
