import { STATUS_CODES } from 'node:http';
import * as z from 'zod';
import { ENVIRONMENTS } from '../../reference';
import type { RecordedRequest } from '../inspector/request-log.schemas';

// The request inspector as HAR 1.2 (CONTRACT §19): http://www.softwareishard.com/blog/har-12-spec/
// The schema documents the answer in the OpenAPI document (and so the response checker of the
// HTTP tests holds the export to it); test/http/har.test.ts validates it against the HAR
// 1.2 JSON schema itself (the har-schema package).

const NameValueSchema = z.object({ name: z.string(), value: z.string() });

const HarEntrySchema = z
  .object({
    startedDateTime: z.string().meta({ description: 'when the request came in (wall time): its answer time less its duration' }),
    time: z.number().nonnegative().meta({ description: 'ms, the duration the inspector measured' }),
    request: z.object({
      method: z.string(),
      url: z.string().meta({ description: "the sandbox's address and the path as recorded (secret-looking query values `[redacted]`)" }),
      httpVersion: z.string(),
      cookies: z.array(NameValueSchema),
      headers: z.array(NameValueSchema).meta({ description: 'the headers the inspector keeps; Authorization and svc-signature masked' }),
      queryString: z.array(NameValueSchema),
      postData: z
        .object({ mimeType: z.string(), text: z.string(), comment: z.string().optional() })
        .optional()
        .meta({ description: 'the body as recorded: its first 4,096 characters' }),
      headersSize: z.number().int(),
      bodySize: z.number().int(),
    }),
    response: z.object({
      status: z.number().int().meta({ description: '0 when the connection was dropped (an injected fault)' }),
      statusText: z.string(),
      httpVersion: z.string(),
      cookies: z.array(NameValueSchema),
      headers: z.array(NameValueSchema),
      content: z.object({ size: z.number().int(), mimeType: z.string(), text: z.string().optional(), comment: z.string().optional() }),
      redirectURL: z.string(),
      headersSize: z.number().int(),
      bodySize: z.number().int(),
      _error: z.string().optional(),
    }),
    cache: z.object({}),
    timings: z.object({
      blocked: z.number(),
      dns: z.number(),
      connect: z.number(),
      send: z.number(),
      wait: z.number(),
      receive: z.number(),
    }),
    _inspector: z
      .object({
        id: z.string(),
        virtual_at: z.string(),
        auth: z.enum(['public', 'secret', 'none', 'failed']),
        client_id: z.string().optional(),
        environment: z.enum(ENVIRONMENTS).optional(),
        code: z.string().optional(),
        message: z.string().optional(),
        hint: z.string().optional(),
        fault: z.string().optional(),
      })
      .meta({ description: "the inspector's own fields that HAR has no place for (GET /sandbox/requests/{id})" }),
  })
  .meta({ id: 'HarEntry' });

/** A HAR 1.2 document of recorded requests (CONTRACT §19). */
export const HarSchema = z
  .object({
    log: z.object({
      version: z.literal('1.2'),
      creator: z.object({ name: z.string(), version: z.string() }),
      comment: z.string().optional(),
      entries: z.array(HarEntrySchema).meta({ description: 'oldest first' }),
    }),
  })
  .meta({ id: 'Har', description: 'HTTP Archive 1.2 (importable into browser developer tools)' });
export type Har = z.output<typeof HarSchema>;
export type HarEntry = z.output<typeof HarEntrySchema>;

export interface HarOptions {
  /** The sandbox's address as the caller reached it: `http://127.0.0.1:4010`. */
  origin: string;
  /** `ramp-sandbox`'s version, for `log.creator`. */
  version: string;
  comment?: string;
}

/**
 * The recorded requests (newest first, as the inspector lists them) as a HAR 1.2 document, in
 * chunks: the log's head, one chunk per entry (oldest first), then its tail. Each entry is
 * rendered when its chunk is read, so a streamed answer holds one entry's JSON at a time beside
 * the records the inspector already keeps.
 */
export function* harChunks(recorded: readonly RecordedRequest[], options: HarOptions): Generator<string> {
  const head: Omit<Har['log'], 'entries'> = { version: '1.2', creator: { name: 'ramp-sandbox', version: options.version } };
  if (options.comment) head.comment = options.comment;
  yield `{"log":${JSON.stringify(head).slice(0, -1)},"entries":[`;
  for (let i = recorded.length - 1; i >= 0; i--) {
    yield (i === recorded.length - 1 ? '' : ',') + JSON.stringify(harEntry(recorded[i]!, options.origin));
  }
  yield ']}}';
}

/** One recorded request as a HAR entry: bodies and headers as the inspector keeps them. */
function harEntry(r: RecordedRequest, origin: string): HarEntry {
  const url = absolute(r.path, origin);
  const requestHeaders = Object.entries(r.headers).map(([name, value]) => ({ name, value }));
  const responseHeaders = Object.entries(r.response_headers ?? {}).map(([name, value]) => ({ name, value }));
  const sentLength = contentLength(r.headers['content-length']);
  const answerLength = contentLength(r.response_headers?.['content-length']);
  const requestBody = r.request_body ?? '';
  const responseBody = r.response_body ?? '';
  const started = new Date(Date.parse(r.at) - r.duration_ms);
  const dropped = r.status === 0;

  const entry: HarEntry = {
    startedDateTime: started.toISOString(),
    time: r.duration_ms,
    request: {
      method: r.method,
      url,
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: requestHeaders,
      queryString: queryOf(url),
      headersSize: -1,
      bodySize: sentLength ?? byteLength(requestBody),
    },
    response: {
      status: r.status,
      statusText: dropped ? '' : (STATUS_CODES[r.status] ?? ''),
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: responseHeaders,
      content: {
        size: answerLength ?? byteLength(responseBody),
        mimeType: r.response_headers?.['content-type'] ?? (responseBody ? 'application/json' : 'x-unknown'),
      },
      redirectURL: r.response_headers?.location ?? '',
      headersSize: -1,
      bodySize: dropped ? -1 : (answerLength ?? byteLength(responseBody)),
    },
    cache: {},
    // The inspector measures the whole answer, from the request's arrival to its last byte.
    timings: { blocked: -1, dns: -1, connect: -1, send: 0, wait: r.duration_ms, receive: 0 },
    _inspector: inspectorFields(r),
  };
  if (requestBody) {
    entry.request.postData = { mimeType: r.headers['content-type'] ?? 'application/json', text: requestBody };
    const cut = cutComment(requestBody, sentLength);
    if (cut) entry.request.postData.comment = cut;
  }
  if (responseBody) {
    entry.response.content.text = responseBody;
    const cut = cutComment(responseBody, answerLength);
    if (cut) entry.response.content.comment = cut;
  }
  if (dropped) entry.response._error = r.message ?? 'no answer';
  return entry;
}

function inspectorFields(r: RecordedRequest): HarEntry['_inspector'] {
  const out: HarEntry['_inspector'] = { id: r.id, virtual_at: r.virtual_at, auth: r.auth };
  if (r.client_id !== undefined) out.client_id = r.client_id;
  if (r.environment !== undefined) out.environment = r.environment;
  if (r.code !== undefined) out.code = r.code;
  if (r.message !== undefined) out.message = r.message;
  if (r.hint !== undefined) out.hint = r.hint;
  if (r.fault !== undefined) out.fault = r.fault;
  return out;
}

/**
 * The path (with its query) on the sandbox's origin, as a URI (RFC 3986, which HAR asks for): a
 * URL parser's form, with what it lets through but a URI may not hold percent-encoded (the `[`
 * and `]` of a `[redacted]` value, a `%` not starting an escape, `{`, `|`, …).
 */
function absolute(path: string, origin: string): string {
  let rest = path;
  try {
    const url = new URL(path, origin);
    rest = url.pathname + url.search;
  } catch {
    // kept as recorded, then escaped below
  }
  return origin + rest.replace(/%(?![0-9A-Fa-f]{2})|[^A-Za-z0-9\-._~:/?@!$&'()*+,;=%]/g, (c) => encodeURIComponent(c));
}

function queryOf(url: string): HarEntry['request']['queryString'] {
  try {
    return [...new URL(url).searchParams].map(([name, value]) => ({ name, value }));
  } catch {
    return [];
  }
}

function contentLength(value: string | undefined): number | undefined {
  return value !== undefined && /^\d{1,15}$/.test(value) ? Number(value) : undefined;
}

const byteLength = (text: string) => Buffer.byteLength(text, 'utf8');

/** Says so when the recorded text is the first 4,096 characters of a longer body. */
function cutComment(text: string, length: number | undefined): string | undefined {
  const kept = byteLength(text);
  return length !== undefined && length > kept
    ? `the first ${text.length} characters (${kept} of ${length} bytes), as the inspector keeps them`
    : undefined;
}
