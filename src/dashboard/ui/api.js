// The dashboard's only way to the sandbox: the control API (JSON) and its event stream.
// The admin token lives in sessionStorage and travels only as `Authorization: Bearer …`.
/** @import { Envelope, LiveMessage, LiveState } from './types' */

const TOKEN_KEY = 'ramp-sandbox.admin-token';

export const token = {
  get: () => sessionStorage.getItem(TOKEN_KEY) ?? '',
  /** @param {string} value */
  set: (value) => sessionStorage.setItem(TOKEN_KEY, value),
  clear: () => sessionStorage.removeItem(TOKEN_KEY),
};

/** An error answer of the API: `message` is the API's own message. */
export class ApiError extends Error {
  /**
   * @param {number} status the HTTP status (0: no answer)
   * @param {string} code the API's error code, else `HTTP <status>`
   * @param {string} message
   */
  constructor(status, code, message) {
    super(message);
    /** @type {number} */
    this.status = status;
    /** @type {string} */
    this.code = code;
  }
}

/** @type {Set<() => void>} */
const authListeners = new Set();
/**
 * Called when the API answers 401: the page asks for the token again.
 * @param {() => void} fn
 */
export const onUnauthorized = (fn) => {
  authListeners.add(fn);
  return () => authListeners.delete(fn);
};

/**
 * @param {Record<string, string>} [extra]
 * @returns {Record<string, string>}
 */
function headers(extra = {}) {
  const t = token.get();
  return t ? { ...extra, authorization: `Bearer ${t}` } : extra;
}

/**
 * A field of a parsed JSON body, when the body is an object (an answer may be anything).
 * @param {unknown} json
 * @param {string} key
 * @returns {unknown}
 */
const field = (json, key) => (typeof json === 'object' && json !== null ? /** @type {Record<string, unknown>} */ (json)[key] : undefined);

/**
 * Calls the control API; resolves with the whole envelope (`data`, `meta`), throws ApiError.
 * `T` is the route's `data` (types.ts), as the caller declares it: it is not checked here.
 * @template [T=unknown]
 * @param {string} method
 * @param {string} path
 * @param {unknown} [body]
 * @returns {Promise<Envelope<T>>}
 */
export async function call(method, path, body) {
  /** @type {RequestInit} */
  const init = { method, headers: headers(body === undefined ? {} : { 'content-type': 'application/json' }) };
  if (body !== undefined) init.body = JSON.stringify(body);
  /** @type {Response} */
  let res;
  try {
    res = await fetch(path, init);
  } catch (error) {
    throw new ApiError(0, 'E_NETWORK', `The sandbox did not answer (${error instanceof Error ? error.message : String(error)})`);
  }
  const text = await res.text();
  /** @type {unknown} */
  let json;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  if (!res.ok || !json || field(json, 'status') !== true) {
    if (res.status === 401) for (const fn of authListeners) fn();
    const code = field(json, 'code');
    const message = field(json, 'message');
    throw new ApiError(
      res.status,
      typeof code === 'string' ? code : `HTTP ${res.status}`,
      typeof message === 'string' ? message : text.slice(0, 200) || res.statusText,
    );
  }
  return /** @type {Envelope<T>} */ (json);
}

/**
 * The `data` of GET `path`.
 * @template [T=unknown]
 * @param {string} path
 * @returns {Promise<T>}
 */
export const get = (path) => call('GET', path).then((r) => /** @type {T} */ (r.data));
/**
 * @template [T=unknown]
 * @param {string} path
 * @param {unknown} [body]
 * @returns {Promise<T>}
 */
export const post = (path, body = {}) => call('POST', path, body).then((r) => /** @type {T} */ (r.data));
/**
 * @template [T=unknown]
 * @param {string} path
 * @param {unknown} body
 * @returns {Promise<T>}
 */
export const patch = (path, body) => call('PATCH', path, body).then((r) => /** @type {T} */ (r.data));
/**
 * @template [T=unknown]
 * @param {string} path
 * @returns {Promise<T>}
 */
export const del = (path) => call('DELETE', path).then((r) => /** @type {T} */ (r.data));

/**
 * Query string of the set values of `params`.
 * @param {Record<string, string | number | null | undefined>} params
 */
export function qs(params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}

// ---- live: GET /sandbox/events ------------------------------------------------------------
// EventSource cannot send a header, so the stream is read with fetch() and parsed here.

/** @type {Set<(message: LiveMessage) => void>} */
const liveListeners = new Set();
/** @type {Set<(state: LiveState) => void>} */
const stateListeners = new Set();
/** @type {LiveState} */
let liveState = 'connecting';

/**
 * Subscribes to live events `{event, data}`; returns the unsubscribe.
 * @param {(message: LiveMessage) => void} fn
 */
export function onLive(fn) {
  liveListeners.add(fn);
  return () => liveListeners.delete(fn);
}

/**
 * Subscribes to the connection state: connecting, connected, reconnecting, offline.
 * @param {(state: LiveState) => void} fn
 */
export function onLiveState(fn) {
  stateListeners.add(fn);
  fn(liveState);
  return () => stateListeners.delete(fn);
}

/** @param {LiveState} s */
function setState(s) {
  liveState = s;
  for (const fn of stateListeners) fn(s);
}

/** @type {AbortController | undefined} */
let controller;

/**
 * Opens the stream, and reopens it whenever it ends, until `stopLive()`. The state says what is
 * true: `connected` while the stream is open; `reconnecting` after it ended (the sandbox
 * stopping, say) while the next tries go on; `offline` once two tries in a row found nothing.
 */
export async function startLive() {
  stopLive();
  const mine = (controller = new AbortController());
  let delay = 1000;
  let failures = 0;
  setState('connecting');
  while (!mine.signal.aborted) {
    try {
      const res = await fetch('/sandbox/events', { headers: headers({ accept: 'text/event-stream' }), signal: mine.signal });
      if (res.status === 401) {
        for (const fn of authListeners) fn();
        setState('offline');
        return;
      }
      if (!res.ok || !res.body) throw new Error(`HTTP ${res.status}`);
      setState('connected');
      delay = 1000;
      failures = 0;
      // A reconnect may have missed changes: everything is refetched.
      emit({ event: 'reconnect', data: {} });
      await readStream(res.body);
    } catch {
      if (mine.signal.aborted) return;
      failures++;
    }
    setState(failures >= 2 ? 'offline' : 'reconnecting');
    await new Promise((r) => setTimeout(r, delay));
    delay = Math.min(delay * 2, 10_000);
  }
}

export function stopLive() {
  controller?.abort();
  controller = undefined;
}

/** @param {ReadableStream<Uint8Array<ArrayBuffer>>} body */
async function readStream(body) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    /** @type {number} */
    let end;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = 'message';
      let data = '';
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data += line.slice(5).trim();
      }
      if (!data) continue;
      try {
        // The feed's messages (types.ts LiveMessage), taken as the server sends them.
        emit(/** @type {LiveMessage} */ ({ event, data: JSON.parse(data) }));
      } catch {
        // not JSON: ignore
      }
    }
  }
}

/** @param {LiveMessage} message */
function emit(message) {
  for (const fn of liveListeners) fn(message);
}
