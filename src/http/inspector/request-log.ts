import { answerBodyKey, BodyBytes, requestBodyKey } from './request-log.bodies';
import { materialise, type RawRecord } from './request-log.record';
import { SHOWN_HEADERS, SHOWN_RESPONSE_HEADERS, type RecordedRequest, type RequestsQuery } from './request-log.schemas';

export const DEFAULT_INSPECT_LIMIT = 10_000;

/** The string fields of a raw record kept in a column of their own (the bodies are kept as bytes, `BodyBytes`). */
const STRING_FIELDS = ['method', 'path', 'clientId', 'environment', 'code', 'message', 'hint', 'fault'] as const;
type StringField = (typeof STRING_FIELDS)[number];
/** The optional ones. */
const OPTIONAL_FIELDS = ['clientId', 'environment', 'code', 'message', 'hint', 'fault'] as const satisfies readonly StringField[];
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
 * generation is only the strings that are its own.
 */
export class RequestLog {
  private next = 0;
  private count = 0;
  private serial = 0;
  private readonly shared = new SharedStrings();
  /** Per slot: the request's serial (its id), then its numbers and strings by column. */
  private readonly serials: number[] = [];
  private readonly wallMs: number[] = [];
  private readonly virtualMs: number[] = [];
  private readonly ms: number[] = [];
  private readonly statuses: number[] = [];
  private readonly auths: number[] = [];
  private readonly strings = Object.fromEntries(STRING_FIELDS.map((f) => [f, []])) as unknown as Record<
    StringField,
    Array<string | undefined>
  >;
  /** The shown request headers, one column per name (SHOWN_HEADERS), and the answer's (SHOWN_RESPONSE_HEADERS). */
  private readonly headers: Array<Array<string | undefined>> = SHOWN_HEADERS.map(() => []);
  private readonly responseHeaders: Array<Array<string | undefined>> = SHOWN_RESPONSE_HEADERS.map(() => []);
  /**
   * The bodies of raw records, as UTF-8 bytes outside the heap (decision 024), under a slot's
   * `requestBodyKey` and `answerBodyKey`.
   */
  private readonly bodies = new BodyBytes();

  constructor(readonly limit = DEFAULT_INSPECT_LIMIT) {}

  /**
   * Stores a raw record in the ring's columns and returns the id assigned to it; it becomes a
   * RecordedRequest when read.
   */
  recordRaw(raw: RawRecord): string {
    const slot = this.advance();
    const serial = ++this.serial;
    this.serials[slot] = serial;
    this.wallMs[slot] = raw.wallMs;
    this.virtualMs[slot] = raw.virtualMs;
    this.ms[slot] = raw.ms;
    this.statuses[slot] = raw.status;
    this.auths[slot] = AUTH_KINDS.indexOf(raw.auth);
    const s = this.strings;
    s.method[slot] = raw.method;
    s.path[slot] = this.shared.keep(raw.path);
    s.clientId[slot] = raw.clientId;
    s.environment[slot] = raw.environment;
    s.code[slot] = raw.code;
    s.message[slot] = raw.message;
    s.hint[slot] = raw.hint;
    s.fault[slot] = raw.fault;
    this.bodies.set(requestBodyKey(slot), raw.requestBody);
    this.bodies.set(answerBodyKey(slot), raw.responseBody);
    for (let h = 0; h < SHOWN_HEADERS.length; h++) {
      const value = raw.headers[SHOWN_HEADERS[h]!];
      this.headers[h]![slot] = value === undefined || !REPEATED_HEADERS[h] ? value : this.shared.keep(value);
    }
    const answer = raw.responseHeaders;
    for (let h = 0; h < SHOWN_RESPONSE_HEADERS.length; h++) {
      const value = answer?.[SHOWN_RESPONSE_HEADERS[h]!];
      this.responseHeaders[h]![slot] = value === undefined || !REPEATED_RESPONSE_HEADERS[h] ? value : this.shared.keep(value);
    }
    return `req_${serial.toString(36)}`;
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

  /** The entry in a ring slot, as a RecordedRequest of its own. */
  private at(slot: number): RecordedRequest {
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
    const requestBody = this.bodies.get(requestBodyKey(slot));
    if (requestBody !== undefined) raw.requestBody = requestBody;
    const responseBody = this.bodies.get(answerBodyKey(slot));
    if (responseBody !== undefined) raw.responseBody = responseBody;
    const full = materialise(raw) as RecordedRequest;
    full.id = this.idAt(slot);
    return full;
  }

  /** What the filters read of a slot, from its columns; the bodies only for `q` (`matches`). */
  private fieldsAt(slot: number): Fields {
    const s = this.strings;
    return {
      id: this.idAt(slot),
      clientId: s.clientId[slot] || undefined,
      environment: s.environment[slot],
      status: this.statuses[slot]!,
      path: s.path[slot]!,
    };
  }

  /** `q`: the id itself, or text (lower case) in the path or a body; a raw record's bodies are decoded only here. */
  private matches(slot: number, e: Fields, needle: string): boolean {
    if (e.id === needle || e.path.toLowerCase().includes(needle)) return true;
    const bodies = [this.bodies.get(requestBodyKey(slot)), this.bodies.get(answerBodyKey(slot))];
    return bodies.some((text) => text?.toLowerCase().includes(needle));
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
      if (needle !== undefined && !this.matches(slot, e, needle)) continue;
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
    for (const column of [...Object.values(this.strings), ...this.headers, ...this.responseHeaders]) column.fill(undefined);
    this.bodies.clear();
    this.next = 0;
    this.count = 0;
  }
}

/**
 * Short strings that repeat from request to request (a path polled again, a client's user agent
 * and content type, a masked key, an answer's content type), kept once: the ring then holds one
 * string for many requests rather than one each, promoted with each. At most SHARED_MAX of them
 * (a table that stops finding anything starts again). One table per log: a sandbox's strings
 * are never kept alive by another's.
 */
class SharedStrings {
  private readonly table = new Map<string, string>();
  private misses = 0;

  keep(text: string): string {
    if (text.length > SHARED_LENGTH) return text;
    const known = this.table.get(text);
    if (known !== undefined) return known;
    if (this.table.size < SHARED_MAX) this.table.set(text, text);
    else if (++this.misses > SHARED_MAX * 2) {
      this.table.clear();
      this.misses = 0;
    }
    return text;
  }
}

const SHARED_MAX = 4096;
const SHARED_LENGTH = 256;

/** Which shown headers repeat from request to request (kept once, `shared`): not a timestamp or a request id. */
const REPEATED_HEADERS = SHOWN_HEADERS.map((name) => name !== 'svc-timestamp' && name !== 'x-request-id');
const REPEATED_RESPONSE_HEADERS = SHOWN_RESPONSE_HEADERS.map((name) => name !== 'x-request-id');

/** What the filters read of an entry, raw or materialised. */
interface Fields {
  id: string;
  clientId: string | undefined;
  environment: string | undefined;
  status: number;
  path: string;
}
