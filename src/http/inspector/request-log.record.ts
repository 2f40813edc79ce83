// One request as the inspector's recorder keeps it: the raw record (its strings flat excerpts
// of the request, its keys masked) and the entry it becomes when read. The ring that stores
// raw records is request-log.ts.
import { ISO } from '../../clock';
import { KEY_PREFIX } from '../../auth';
import { ENVIRONMENTS } from '../../reference';
import { cutText } from '../../shared/excerpt';
import { FIELD_EXCERPT, SHOWN_HEADERS, SHOWN_RESPONSE_HEADERS, type RecordedRequest } from './request-log.schemas';

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

/**
 * The first `max` characters of `text`, never a view into it: `slice` alone returns a string
 * that keeps all of `text` alive as long as the excerpt is kept (a 4 KiB excerpt of a 1 MiB body
 * held 1 MiB). A text within `max` is kept as it is (bodies and URLs are strings of their own,
 * and an answer polled again shares one string); a longer one is cut and copied.
 */
export function ownExcerpt(text: string, max: number): string {
  // Cut on a code point: a surrogate pair at the edge is left out whole (issue item 9).
  return text.length <= max ? text : ownCopy(cutText(text, max));
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
    out[name] =
      name === 'authorization' ? maskBearer(value) : name === 'svc-signature' ? maskSignature(value) : ownExcerpt(value, HEADER_EXCERPT);
  }
  return out;
}

/**
 * The answer's headers the inspector keeps (SHOWN_RESPONSE_HEADERS), each as it is or a flat
 * copy of its start (`ownExcerpt`); undefined when it had none of them. `hint`, the entry's own
 * copy of `svc-sandbox-hint`, is shared rather than copied again. `header` reads one header of
 * the answer by its lower-case name (`res.getHeader`: asking for the few shown ones spares the
 * copy of them all that `getHeaders()` makes on every request).
 */
export function shownResponseHeaders(
  header: (name: string) => number | string | string[] | undefined,
  hint?: string,
): Record<string, string> | undefined {
  let out: Record<string, string> | undefined;
  for (const name of SHOWN_RESPONSE_HEADERS) {
    const raw = header(name);
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

/** `Bearer <partner key prefix>?<rest>`, the prefixes being spec §5's (auth's KEY_PREFIX). */
const BEARER = new RegExp(`^(Bearer\\s+)((?:${Object.values(KEY_PREFIX).join('|')})_(?:${ENVIRONMENTS.join('|')})_)?(\\S*)$`, 'i');

function maskBearer(value: string): string {
  const m = BEARER.exec(value);
  if (!m) return '****';
  const [, , prefix, rest = ''] = m;
  // Only a partner key shows its last four characters; any other token shows none.
  if (!prefix) return 'Bearer ****';
  return `Bearer ${prefix}****${rest.length > 8 ? ownCopy(rest.slice(-4)) : ''}`;
}

function maskSignature(value: string): string {
  return value.startsWith('sha256=') ? 'sha256=****' : '****';
}
