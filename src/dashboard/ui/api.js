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
 * One stream for every tab of the dashboard on this origin: a browser keeps at most 6 HTTP/1.1
 * connections to a host, and a stream holds one for as long as its tab is open, so a 6th tab
 * found no connection for its data and a 7th could not load. The tab that holds the lock streams
 * and passes each message and state change on to the others over a BroadcastChannel; when it
 * closes, the lock passes to another tab, which opens the stream (and everyone refetches).
 */
const SHARED = 'ramp-sandbox.live';

/**
 * What one tab tells the others: the stream's state, a message, or (a new tab) asking for the state.
 * @typedef {{kind: 'state', state: LiveState} | {kind: 'message', message: LiveMessage} | {kind: 'hello'}} Relay
 */

/**
 * Opens the stream, and reopens it whenever it ends, until `stopLive()`. The state says what is
 * true: `connected` while the stream is open; `reconnecting` after it ended (the sandbox
 * stopping, say) while the next tries go on; `offline` once two tries in a row found nothing.
 * With other tabs of the dashboard open, one of them may hold the stream for all (`SHARED`).
 */
export function startLive() {
  stopLive();
  const mine = (controller = new AbortController());
  setState('connecting');
  if (typeof BroadcastChannel !== 'function' || !navigator.locks) {
    stream(mine.signal, undefined);
    return;
  }
  const channel = new BroadcastChannel(SHARED);
  mine.signal.addEventListener('abort', () => channel.close());
  let leading = false;
  /** @param {MessageEvent<Relay>} event */
  channel.onmessage = (event) => {
    const relay = event.data;
    if (leading) {
      // A tab opened since: it learns the state from the one that streams.
      if (relay.kind === 'hello') channel.postMessage(/** @type {Relay} */ ({ kind: 'state', state: liveState }));
      return;
    }
    if (relay.kind === 'state') setState(relay.state);
    else if (relay.kind === 'message') emit(relay.message);
  };
  channel.postMessage(/** @type {Relay} */ ({ kind: 'hello' }));
  navigator.locks
    .request(SHARED, { signal: mine.signal }, async () => {
      leading = true;
      await stream(mine.signal, channel);
    })
    .catch(() => {
      // stopLive() while waiting for the lock: nothing to do.
    });
}

/**
 * Reads the stream until `signal` aborts, passing what it reads to this tab and, through
 * `channel`, to the others.
 * @param {AbortSignal} signal
 * @param {BroadcastChannel | undefined} channel
 */
async function stream(signal, channel) {
  /** @param {Relay} relay */
  const relay = (relay) => {
    if (!signal.aborted) channel?.postMessage(relay);
  };
  /** @param {LiveState} state */
  const announce = (state) => {
    setState(state);
    relay({ kind: 'state', state });
  };
  /** @param {LiveMessage} message */
  const tell = (message) => {
    emit(message);
    relay({ kind: 'message', message });
  };
  let delay = 1000;
  let failures = 0;
  while (!signal.aborted) {
    try {
      const res = await fetch('/sandbox/events', { headers: headers({ accept: 'text/event-stream' }), signal });
      if (res.status === 401) {
        for (const fn of authListeners) fn();
        setState('offline');
        return;
      }
      if (!res.ok || !res.body) throw new Error(`HTTP ${res.status}`);
      announce('connected');
      delay = 1000;
      failures = 0;
      // A reconnect may have missed changes: everything is refetched, in every tab.
      tell({ event: 'reconnect', data: {} });
      await readStream(res.body, tell);
    } catch {
      if (signal.aborted) return;
      failures++;
    }
    announce(failures >= 2 ? 'offline' : 'reconnecting');
    await new Promise((r) => setTimeout(r, delay));
    delay = Math.min(delay * 2, 10_000);
  }
}

export function stopLive() {
  controller?.abort();
  controller = undefined;
}

/**
 * @param {ReadableStream<Uint8Array<ArrayBuffer>>} body
 * @param {(message: LiveMessage) => void} tell
 */
async function readStream(body, tell) {
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
        tell(/** @type {LiveMessage} */ ({ event, data: JSON.parse(data) }));
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
