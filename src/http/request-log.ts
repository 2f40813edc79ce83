import * as z from 'zod';
import { ISO } from '../clock';
import { KEY_PREFIX } from '../auth';
import { ENVIRONMENTS } from '../reference';
import { DateTime, pageQueryParam } from '../shared/schemas';

/** CONTRACT §11: bodies are kept up to this many characters. */
export const BODY_EXCERPT = 4096;
/** Other strings a request brings (path, client id, header values, messages) are kept up to this. */
export const FIELD_EXCERPT = 2048;
export const DEFAULT_INSPECT_LIMIT = 10_000;
/** The answer's headers the inspector keeps: what the body is, and those a client acts on. */
const SHOWN_RESPONSE_HEADERS = ['content-type', 'content-length', 'retry-after', 'allow', 'location', 'x-request-id', 'svc-sandbox-hint'];

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
    request_body: z.string().optional().meta({ description: `the first ${BODY_EXCERPT} characters` }),
    response_body: z.string().optional().meta({ description: `the first ${BODY_EXCERPT} characters` }),
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
    .meta({ type: 'integer', minimum: 1, maximum: 1000, example: 50, description: 'the same as per_page (per_page wins when both are given)' }),
});
export type RequestsQuery = z.output<typeof RequestsQuerySchema>;

/**
 * What the recorder keeps of a request when it is answered: numbers and short strings it owns.
 * Every string that came from the request is a flat copy of at most its excerpt's length
 * (`ownExcerpt`), never a slice: V8 keeps a slice's whole parent alive, so a 4 KiB slice of a
 * 1 MiB body held 1 MiB (issue 22). Turning it into a RecordedRequest (dates) waits until someone
 * reads it.
 */
export interface RawRecord {
  wallMs: number;
  virtualMs: number;
  method: string;
  path: string;
  status: number;
  ms: number;
  auth: RecordedRequest['auth'];
  /** The shown headers, already masked and cut (`maskedHeaders`). */
  headers: Record<string, string>;
  /** The shown headers of the answer (`shownResponseHeaders`); none when it had none of them. */
  responseHeaders?: Record<string, string>;
  clientId?: string;
  environment?: RecordedRequest['environment'];
  code?: string;
  message?: string;
  hint?: string;
  fault?: string;
  requestBody?: string;
  responseBody?: string;
}

/** The inspector's view of a raw record (CONTRACT §11), without its id. */
export function materialise(raw: RawRecord): Omit<RecordedRequest, 'id'> {
  const entry: Omit<RecordedRequest, 'id'> = {
    at: ISO(raw.wallMs),
    virtual_at: ISO(raw.virtualMs),
    method: raw.method,
    path: raw.path,
    status: raw.status,
    duration_ms: Math.round(raw.ms * 100) / 100,
    auth: raw.auth,
    headers: raw.headers,
  };
  if (raw.responseHeaders) entry.response_headers = raw.responseHeaders;
  if (raw.clientId) entry.client_id = raw.clientId;
  if (raw.environment) entry.environment = raw.environment;
  if (raw.code !== undefined) entry.code = raw.code;
  if (raw.message !== undefined) entry.message = raw.message;
  if (raw.hint) entry.hint = raw.hint;
  if (raw.fault) entry.fault = raw.fault;
  if (raw.requestBody) entry.request_body = raw.requestBody;
  if (raw.responseBody) entry.response_body = raw.responseBody;
  return entry;
}

/** The string fields of a raw record, each kept in a column of its own. */
const STRING_FIELDS = ['method', 'path', 'clientId', 'environment', 'code', 'message', 'hint', 'fault', 'requestBody', 'responseBody'] as const;
type StringField = (typeof STRING_FIELDS)[number];
/** The optional ones, in the order `materialise` reads them. */
const OPTIONAL_FIELDS = ['clientId', 'environment', 'code', 'message', 'hint', 'fault', 'requestBody', 'responseBody'] as const satisfies readonly StringField[];
const AUTH_KINDS: ReadonlyArray<RecordedRequest['auth']> = ['public', 'secret', 'none', 'failed'];

/**
 * The request inspector's store: a ring buffer of the last `limit` /v1 requests. Ids are a
 * counter, not the seeded generator, so inspecting never shifts the references a seed makes.
 *
 * Kept GC-friendly (docs/decisions/010-inspector-ring-columns.md): a recorded request is not an
 * object of its own but a slot in a few columns, arrays that grow once to the ring's size and
 * are then written in place (its numbers unboxed in arrays of numbers, its strings in arrays of
 * strings, a short string repeated from request to request kept once), and it is turned into a
 * `RecordedRequest` only when read; filters read the columns. Objects made per request (the
 * recorder's raw record and its headers objects) die young; what a request leaves in the old
 * generation is only the strings that are its own. An entry given whole (`record`) is kept as it is.
 */
export class RequestLog {
  private next = 0;
  private count = 0;
  private serial = 0;
  private readonly listeners = new Set<(entry: RecordedRequest) => void>();
  /** Per slot: the request's serial (its id), then its numbers and strings by column. */
  private readonly serials: number[] = [];
  private readonly wallMs: number[] = [];
  private readonly virtualMs: number[] = [];
  private readonly ms: number[] = [];
  private readonly statuses: number[] = [];
  private readonly auths: number[] = [];
  private readonly strings = Object.fromEntries(STRING_FIELDS.map((f) => [f, []])) as unknown as Record<StringField, Array<string | undefined>>;
  /** The shown request headers, one column per name (SHOWN_HEADERS), and the answer's (SHOWN_RESPONSE_HEADERS). */
  private readonly headers: Array<Array<string | undefined>> = SHOWN_HEADERS.map(() => []);
  private readonly responseHeaders: Array<Array<string | undefined>> = SHOWN_RESPONSE_HEADERS.map(() => []);
  /** Entries stored whole (`record`), by slot; undefined for a raw one. */
  private readonly whole: Array<RecordedRequest | undefined> = [];

  constructor(readonly limit = DEFAULT_INSPECT_LIMIT) {}

  /** Stores an entry (its id is assigned here) and tells the listeners. */
  record(entry: Omit<RecordedRequest, 'id'>): RecordedRequest {
    const full = entry as RecordedRequest;
    full.id = `req_${(++this.serial).toString(36)}`;
    const slot = this.advance();
    this.serials[slot] = this.serial;
    this.whole[slot] = full;
    for (const listener of this.listeners) listener(full);
    return full;
  }

  /**
   * Stores a raw record in the ring's columns and returns the id assigned to it; it becomes a
   * RecordedRequest when read, or at once when someone listens.
   */
  recordRaw(raw: RawRecord): string {
    const slot = this.advance();
    const serial = ++this.serial;
    this.serials[slot] = serial;
    this.whole[slot] = undefined;
    this.wallMs[slot] = raw.wallMs;
    this.virtualMs[slot] = raw.virtualMs;
    this.ms[slot] = raw.ms;
    this.statuses[slot] = raw.status;
    this.auths[slot] = AUTH_KINDS.indexOf(raw.auth);
    const s = this.strings;
    s.method[slot] = raw.method;
    s.path[slot] = shared(raw.path);
    s.clientId[slot] = raw.clientId;
    s.environment[slot] = raw.environment;
    s.code[slot] = raw.code;
    s.message[slot] = raw.message;
    s.hint[slot] = raw.hint;
    s.fault[slot] = raw.fault;
    s.requestBody[slot] = raw.requestBody;
    s.responseBody[slot] = raw.responseBody;
    for (let h = 0; h < SHOWN_HEADERS.length; h++) {
      const value = raw.headers[SHOWN_HEADERS[h]!];
      this.headers[h]![slot] = value === undefined || !REPEATED_HEADERS[h] ? value : shared(value);
    }
    const answer = raw.responseHeaders;
    for (let h = 0; h < SHOWN_RESPONSE_HEADERS.length; h++) {
      const value = answer?.[SHOWN_RESPONSE_HEADERS[h]!];
      this.responseHeaders[h]![slot] = value === undefined || !REPEATED_RESPONSE_HEADERS[h] ? value : shared(value);
    }
    const id = `req_${serial.toString(36)}`;
    if (this.listeners.size > 0) {
      const full = this.at(slot);
      for (const listener of this.listeners) listener(full);
    }
    return id;
  }

  /** The next slot to write, the ring moved on past it. */
  private advance(): number {
    const slot = this.next;
    this.next = (this.next + 1) % this.limit;
    if (this.count < this.limit) this.count++;
    return slot;
  }

  private idAt(slot: number): string {
    return `req_${this.serials[slot]!.toString(36)}`;
  }

  /** The entry in a ring slot, as a RecordedRequest of its own (or the one stored whole). */
  private at(slot: number): RecordedRequest {
    const whole = this.whole[slot];
    if (whole) return whole;
    const s = this.strings;
    const headers: Record<string, string> = {};
    for (let h = 0; h < SHOWN_HEADERS.length; h++) {
      const value = this.headers[h]![slot];
      if (value !== undefined) headers[SHOWN_HEADERS[h]!] = value;
    }
    let responseHeaders: Record<string, string> | undefined;
    for (let h = 0; h < SHOWN_RESPONSE_HEADERS.length; h++) {
      const value = this.responseHeaders[h]![slot];
      if (value !== undefined) (responseHeaders ??= {})[SHOWN_RESPONSE_HEADERS[h]!] = value;
    }
    const raw: RawRecord = {
      wallMs: this.wallMs[slot]!,
      virtualMs: this.virtualMs[slot]!,
      method: s.method[slot]!,
      path: s.path[slot]!,
      status: this.statuses[slot]!,
      ms: this.ms[slot]!,
      auth: AUTH_KINDS[this.auths[slot]!]!,
      headers,
    };
    if (responseHeaders) raw.responseHeaders = responseHeaders;
    for (const field of OPTIONAL_FIELDS) {
      const value = s[field][slot];
      if (value !== undefined) (raw as unknown as Record<string, string>)[field] = value;
    }
    const full = materialise(raw) as RecordedRequest;
    full.id = this.idAt(slot);
    return full;
  }

  /** What the filters read of a slot, from its columns (or its whole entry). */
  private fieldsAt(slot: number): Fields {
    const whole = this.whole[slot];
    if (whole) return { id: whole.id, clientId: whole.client_id, environment: whole.environment, status: whole.status, path: whole.path, requestBody: whole.request_body, responseBody: whole.response_body };
    const s = this.strings;
    return { id: this.idAt(slot), clientId: s.clientId[slot] || undefined, environment: s.environment[slot], status: this.statuses[slot]!, path: s.path[slot]!, requestBody: s.requestBody[slot], responseBody: s.responseBody[slot] };
  }

  /** Newest first, filtered: the first `per_page` (or `limit`, default 50) of page `page`. */
  list(q: Partial<RequestsQuery> = {}): RecordedRequest[] {
    return this.page(q).items;
  }

  /**
   * One page of the matching entries, newest first, and how many match in all (CONTRACT §15:
   * lists page through everything kept). Entries are matched on their columns, so counting the
   * matches builds no entry; only the page returned is.
   */
  page(q: Partial<RequestsQuery> = {}): { items: RecordedRequest[]; total: number } {
    const perPage = q.per_page ?? q.limit ?? 50;
    const first = ((q.page ?? 1) - 1) * perPage;
    const statusClass = q.status?.endsWith('xx') ? Number(q.status[0]) : undefined;
    const status = q.status && statusClass === undefined ? Number(q.status) : undefined;
    const needle = q.q?.trim().toLowerCase() || undefined;
    const items: RecordedRequest[] = [];
    let total = 0;
    for (let i = 1; i <= this.count; i++) {
      const slot = (this.next - i + this.limit) % this.limit;
      const e = this.fieldsAt(slot);
      if (q.client_id !== undefined && e.clientId !== q.client_id) continue;
      if (q.environment !== undefined && e.environment !== q.environment) continue;
      if (status !== undefined && e.status !== status) continue;
      if (statusClass !== undefined && Math.floor(e.status / 100) !== statusClass) continue;
      if (q.path !== undefined && !e.path.includes(q.path)) continue;
      if (needle !== undefined && !matches(e, needle)) continue;
      if (total >= first && items.length < perPage) items.push(this.at(slot));
      total++;
    }
    return { items, total };
  }

  get(id: string): RecordedRequest | undefined {
    for (let i = 1; i <= this.count; i++) {
      const slot = (this.next - i + this.limit) % this.limit;
      if (this.idAt(slot) === id) return this.at(slot);
    }
    return undefined;
  }

  get size(): number {
    return this.count;
  }

  clear(): void {
    // The columns are kept (their room is reused); what the slots hold is let go.
    for (const column of [...Object.values(this.strings), ...this.headers, ...this.responseHeaders, this.whole]) column.fill(undefined);
    this.next = 0;
    this.count = 0;
  }

  /** Called with each new entry (the dashboard's live feed); returns the unsubscribe. */
  onRecord(listener: (entry: RecordedRequest) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

/**
 * Short strings that repeat from request to request (a path polled again, a client's user agent
 * and content type, a masked key, an answer's content type), kept once: the ring then holds one
 * string for many requests rather than one each, promoted with each. At most SHARED_MAX of them
 * (a table that stops finding anything starts again).
 */
const SHARED = new Map<string, string>();
const SHARED_MAX = 4096;
const SHARED_LENGTH = 256;
let sharedMisses = 0;

function shared(text: string): string {
  if (text.length > SHARED_LENGTH) return text;
  const known = SHARED.get(text);
  if (known !== undefined) return known;
  if (SHARED.size < SHARED_MAX) SHARED.set(text, text);
  else if (++sharedMisses > SHARED_MAX * 2) {
    SHARED.clear();
    sharedMisses = 0;
  }
  return text;
}

/**
 * The first `max` characters of `text`, never a view into it: `slice` alone returns a string
 * that keeps all of `text` alive as long as the excerpt is kept (a 4 KiB excerpt of a 1 MiB body
 * held 1 MiB). A text within `max` is kept as it is (bodies and URLs are strings of their own,
 * and an answer polled again shares one string); a longer one is cut and copied.
 */
export function ownExcerpt(text: string, max: number): string {
  return text.length <= max ? text : ownCopy(text.slice(0, max));
}

/** A flat copy of `text` holding nothing else alive (a UTF-16 round trip copies it exactly). */
export function ownCopy(text: string): string {
  // V8 makes no slice view under 13 characters.
  return text.length < 13 ? text : Buffer.from(text, 'utf16le').toString('utf16le');
}

/**
 * Header values with key material masked (CONTRACT §11): `Bearer sk_test_****abcd`; anything
 * that is not a partner key (an admin token sent to /v1, say) shows nothing of itself.
 */
export function maskedHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of SHOWN_HEADERS) {
    const raw = headers[name];
    if (raw === undefined) continue;
    const value = Array.isArray(raw) ? raw.join(', ') : raw;
    out[name] = name === 'authorization' ? maskBearer(value) : name === 'svc-signature' ? maskSignature(value) : ownExcerpt(value, HEADER_EXCERPT);
  }
  return out;
}

/**
 * The answer's headers the inspector keeps (SHOWN_RESPONSE_HEADERS), each as it is or a flat
 * copy of its start (`ownExcerpt`); undefined when it had none of them. `hint`, the entry's own
 * copy of `svc-sandbox-hint`, is shared rather than copied again.
 */
export function shownResponseHeaders(headers: Record<string, number | string | string[] | undefined>, hint?: string): Record<string, string> | undefined {
  let out: Record<string, string> | undefined;
  for (const name of SHOWN_RESPONSE_HEADERS) {
    const raw = headers[name];
    if (raw === undefined) continue;
    const value = Array.isArray(raw) ? raw.join(', ') : String(raw);
    (out ??= {})[name] = name === 'svc-sandbox-hint' && hint !== undefined ? hint : ownExcerpt(value, FIELD_EXCERPT);
  }
  return out;
}

/**
 * A header value is kept up to this many characters: as it is when shorter (node's parser makes
 * each value a string of its own, holding nothing else alive), a flat copy of its start when
 * longer (a slice would keep the whole value).
 */
const HEADER_EXCERPT = 256;

const SHOWN_HEADERS = ['svc-client-id', 'svc-timestamp', 'svc-signature', 'authorization', 'content-type', 'content-length', 'x-request-id', 'user-agent'];
/** Which shown headers repeat from request to request (kept once, `shared`): not a timestamp or a request id. */
const REPEATED_HEADERS = SHOWN_HEADERS.map((name) => name !== 'svc-timestamp' && name !== 'x-request-id');
const REPEATED_RESPONSE_HEADERS = SHOWN_RESPONSE_HEADERS.map((name) => name !== 'x-request-id');

/** `Bearer <partner key prefix>?<rest>`, the prefixes being spec §5's (auth's KEY_PREFIX). */
const BEARER = new RegExp(`^(Bearer\\s+)((?:${Object.values(KEY_PREFIX).join('|')})_(?:${ENVIRONMENTS.join('|')})_)?(\\S*)$`, 'i');

function maskBearer(value: string): string {
  const m = BEARER.exec(value);
  if (!m) return '****';
  const [, bearer, prefix, rest = ''] = m;
  // Only a partner key shows its last four characters; any other token shows none.
  if (!prefix) return 'Bearer ****';
  return `Bearer ${prefix}****${rest.length > 8 ? ownCopy(rest.slice(-4)) : ''}`;
}

function maskSignature(value: string): string {
  return value.startsWith('sha256=') ? 'sha256=****' : '****';
}

/** What the filters read of an entry, raw or materialised. */
interface Fields {
  id: string;
  clientId: string | undefined;
  environment: string | undefined;
  status: number;
  path: string;
  requestBody: string | undefined;
  responseBody: string | undefined;
}

/** `q`: the id itself, or text (lower case) in the path or a body. */
function matches(e: Fields, needle: string): boolean {
  if (e.id === needle) return true;
  return [e.path, e.requestBody, e.responseBody].some((text) => text !== undefined && text.toLowerCase().includes(needle));
}
