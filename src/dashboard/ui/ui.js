// Shared pieces of the dashboard: the htm binding, data hooks and small components.
import { h } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import htm from 'htm';
import { call, get, onLive } from './api.js';
/** @import { ComponentChildren, VNode } from 'preact' */
/** @import { LiveKind, LiveMessage, PageMeta, Paged } from './types' */

/**
 * What `html` makes: one element, or a list when the template has several at its top level.
 * @typedef {VNode | VNode[]} Html
 */

/**
 * An error shown where the action was taken: an ApiError (status and the API's code and
 * message), or any other Error (`code` when it was given one).
 * @typedef {Error & { code?: string, status?: number }} ShownError
 */

/**
 * An event of a form field (`onInput`, `onChange`): its `currentTarget` has the value.
 * @typedef {Event & { currentTarget: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement }} FieldEvent
 */

/**
 * Says whether a live message concerns a view.
 * @typedef {(message: LiveMessage) => boolean} LiveMatch
 */

/**
 * htm bound to preact. Its values are not typed: the props a template passes a component are
 * not checked against the component's (htm is a tagged template, not JSX).
 * @type {(strings: TemplateStringsArray, ...values: unknown[]) => Html}
 */
export const html = htm.bind(h);

/**
 * What a caught value is shown as: itself when it is an Error (ApiError included).
 * @param {unknown} error
 * @returns {ShownError}
 */
export const shownError = (error) => (error instanceof Error ? error : new Error(String(error)));

/**
 * @template T
 * @typedef {{ data: T | undefined, error: ShownError | undefined, loading: boolean }} ResourceState
 */

/**
 * @template T
 * @typedef {ResourceState<T> & { reload: () => Promise<void> }} Resource
 */

/**
 * Fetches `path` and refetches it when a live event of one of `kinds` arrives (and `matches`
 * says it concerns this view). Refetches are never concurrent: one in flight, at most one queued.
 * `T` is the route's `data` (types.ts), as the caller declares it.
 * @template T
 * @param {string} path
 * @param {LiveKind[]} [kinds]
 * @param {LiveMatch} [matches]
 * @param {(path: string) => Promise<T>} [fetcher] what fetches it (default: the `data` of GET path)
 * @returns {Resource<T>}
 */
export function useResource(path, kinds = [], matches = () => true, fetcher = get) {
  const [state, setState] = useState(/** @type {ResourceState<T>} */ ({ data: undefined, error: undefined, loading: true }));
  const busy = useRef(false);
  const again = useRef(false);
  const current = useRef(path);
  current.current = path;
  const matchRef = useRef(matches);
  matchRef.current = matches;

  /** Callers of reload() waiting for the data to be shown (a refetch queued behind one in flight). */
  const waiters = useRef(/** @type {Array<() => void>} */ ([]));

  /** @type {() => Promise<void>} */
  const load = useCallback(async () => {
    if (!current.current) return;
    if (busy.current) {
      again.current = true;
      return new Promise((resolve) => waiters.current.push(resolve));
    }
    busy.current = true;
    const asked = current.current;
    try {
      /** @type {T} */
      const data = await fetcher(asked);
      if (asked === current.current) setState({ data, error: undefined, loading: false });
    } catch (error) {
      if (asked === current.current) setState((s) => ({ data: s.data, error: shownError(error), loading: false }));
    } finally {
      busy.current = false;
      if (again.current) {
        again.current = false;
        load();
      } else {
        for (const resolve of waiters.current.splice(0)) resolve();
      }
    }
  }, []);

  useEffect(() => {
    setState((s) => ({ ...s, loading: true }));
    load();
  }, [path]);
  useEffect(
    () =>
      onLive((message) => {
        if (message.event === 'reconnect' || (kinds.includes(message.event) && matchRef.current(message))) load();
      }),
    [kinds.join(',')],
  );
  return { ...state, reload: load };
}

/**
 * One page of a paged list (`data` and `meta`, CONTRACT §15: the total is shown), refetched like
 * useResource.
 * @template T
 * @param {string} path
 * @param {LiveKind[]} [kinds]
 * @param {LiveMatch} [matches]
 * @returns {Resource<Paged<T>>}
 */
export function usePaged(path, kinds = [], matches = () => true) {
  // A paged route always answers with meta (the route spec's `paged`).
  return useResource(path, kinds, matches, (p) => /** @type {Promise<Paged<T>>} */ (call('GET', p)));
}

/**
 * A number that grows with each live event of `kinds` (and each reconnect): a dependency to refetch on.
 * @param {LiveKind[]} kinds
 * @param {LiveMatch} [matches]
 */
export function useLiveVersion(kinds, matches = () => true) {
  const [version, setVersion] = useState(0);
  const matchRef = useRef(matches);
  matchRef.current = matches;
  useEffect(
    () =>
      onLive((message) => {
        if (message.event === 'reconnect' || (kinds.includes(message.event) && matchRef.current(message))) setVersion((v) => v + 1);
      }),
    [kinds.join(',')],
  );
  return version;
}

/**
 * Runs `fn`: the result, or undefined when it failed (the error is the action's `error`).
 * `label` says what was done; a function makes it from the result ("attempt 9 → HTTP 200").
 * @typedef {<T>(label: string | ((result: T) => string), fn: () => Promise<T>) => Promise<T | undefined>} RunAction
 */

/**
 * Runs an API action: `busy` while it runs, `done` (what it did) or `error` (the API's message)
 * after, each also announced to screen readers (the page's aria-live region). Focus goes back
 * where it was: to the same control when it is still there, else to one that does the same
 * (`data-action`), else to the heading of the panel it was in (issue 20: focus dropped to the
 * page after every action).
 * @returns {{ busy: boolean, error: ShownError | undefined, done: string | undefined, run: RunAction, clear: () => void }}
 */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState(/** @type {ShownError | undefined} */ (undefined));
  const [done, setDone] = useState(/** @type {string | undefined} */ (undefined));
  /** @type {RunAction} */
  const run = useCallback(async (label, fn) => {
    // A new action: where focus goes now is this one's to say, not the last one's.
    stopWatching();
    const from = focusPlace();
    setBusy(true);
    setError(undefined);
    setDone(undefined);
    try {
      const result = await fn();
      const text = typeof label === 'function' ? label(result) : label;
      setDone(text);
      announce(text);
      return result;
    } catch (e) {
      const shown = shownError(e);
      setError(shown);
      announce(`Failed: ${shown.message}`);
      return undefined;
    } finally {
      setBusy(false);
      restoreFocus(from);
    }
  }, []);
  return { busy, error, done, run, clear: () => setError(undefined) };
}

/**
 * Where focus is, described so it can be found again after a render replaced the element.
 * @typedef {{ element: HTMLElement, action: string | null, panel: string | null }} FocusPlace
 */

/** @returns {FocusPlace | undefined} */
function focusPlace() {
  const element = document.activeElement;
  if (!(element instanceof HTMLElement) || element === document.body) return undefined;
  return { element, action: element.getAttribute('data-action'), panel: element.closest('section[id]')?.id ?? null };
}

/**
 * After the render that follows an action: focus back on `from` when focus was lost. Renders
 * that the action set off may still come (a live update removing the control used), so for a
 * moment after, focus that falls to the page is put back again.
 * @param {FocusPlace | undefined} from
 */
function restoreFocus(from) {
  if (!from) return;
  const fix = () => {
    const now = document.activeElement;
    if (now && now !== document.body && now.isConnected && !(now instanceof HTMLButtonElement && now.disabled)) return;
    /** @param {Element | null | undefined} el */
    const usable = (el) =>
      el instanceof HTMLElement && el.isConnected && !(/** @type {HTMLButtonElement} */ (el).disabled) && el.offsetParent !== null;
    const scope = from.panel ? document.getElementById(from.panel) : null;
    const same = from.action ? (scope ?? document).querySelector(`[data-action="${CSS.escape(from.action)}"]`) : null;
    const heading = scope?.querySelector('h2') ?? document.querySelector('main h1');
    const target = [from.element, same, heading].find(usable);
    if (target instanceof HTMLElement) target.focus();
  };
  stopWatching();
  const timer = setTimeout(fix, 0);
  const watch = new MutationObserver(() => {
    if (document.activeElement === document.body || !document.activeElement) fix();
  });
  watch.observe(document.body, { childList: true, subtree: true });
  // Only the renders that follow the action: after that, where focus goes is the user's doing.
  const end = setTimeout(() => watch.disconnect(), 1500);
  stopWatching = () => {
    clearTimeout(timer);
    clearTimeout(end);
    watch.disconnect();
  };
}

/** Stops the focus watch of the last action (restoreFocus). */
let stopWatching = () => {};

// ---- announcements: one aria-live region for the whole page --------------------------------

/** @type {Set<(text: string) => void>} */
const announceListeners = new Set();

/**
 * Says `text` to screen readers (and shows nothing: each action shows its own result).
 * @param {string} text
 */
export function announce(text) {
  for (const fn of announceListeners) fn(text);
}

/** The page's polite live region; the same text said twice is said again. */
export function Announcer() {
  const [said, setSaid] = useState({ text: '', n: 0 });
  useEffect(() => {
    /** @param {string} text */
    const on = (text) => setSaid((s) => ({ text, n: s.n + 1 }));
    announceListeners.add(on);
    return () => {
      announceListeners.delete(on);
    };
  }, []);
  return html`<div class="sr-only" aria-live="polite" aria-atomic="true" data-testid="announcer">${said.text ? html`<span key=${said.n}>${said.text}</span>` : null}</div>`;
}

// ---- copying ------------------------------------------------------------------------------

/**
 * Puts `text` on the clipboard: the Clipboard API where the page is a secure context
 * (localhost, 127.0.0.1), else a selected textarea and the copy command (any other address).
 * @param {string} text
 * @returns {Promise<void>}
 */
export async function copyText(text) {
  if (window.isSecureContext && navigator.clipboard) {
    try {
      await navigator.clipboard.writeText(text);
      return;
    } catch {
      // denied: try the older way
    }
  }
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.style.position = 'fixed';
  area.style.opacity = '0';
  const back = document.activeElement;
  document.body.append(area);
  area.select();
  const ok = document.execCommand('copy');
  area.remove();
  if (back instanceof HTMLElement) back.focus();
  if (!ok) throw new Error('The browser did not copy: select the text and copy it by hand');
}

/**
 * A small button that copies `text`; `label` names what it copies (for its accessible name).
 * @param {{ text: string, label: string }} props
 */
export function CopyButton({ text, label }) {
  const [state, setState] = useState(/** @type {'idle' | 'copied' | 'failed'} */ ('idle'));
  return html`<button type="button" class="copy" aria-label=${`Copy ${label}`} title=${`Copy ${label}`} data-copy=${text}
    onClick=${() =>
      copyText(text).then(
        () => {
          setState('copied');
          announce(`Copied ${label}`);
        },
        (/** @type {unknown} */ e) => {
          setState('failed');
          announce(shownError(e).message);
        },
      )}
    onBlur=${() => setState('idle')}>${state === 'copied' ? 'Copied' : state === 'failed' ? 'Not copied' : 'Copy'}</button>`;
}

/**
 * An id or key in monospace with its copy button.
 * @param {{ value: string, label: string, href?: string }} props
 */
export function Copyable({ value, label, href }) {
  return html`<span class="copyable">${href ? html`<a class="mono small" href=${href}>${value}</a>` : html`<code class="small break">${value}</code>`}<${CopyButton} text=${value} label=${label} /></span>`;
}

// ---- lists: pager and empty states ---------------------------------------------------------

/**
 * The pager of a list: where it is in the total, and the pages around it.
 * @param {{ meta: PageMeta | undefined, onPage: (page: number) => void, label: string }} props
 */
export function Pager({ meta, onPage, label }) {
  if (!meta || meta.total === 0) return null;
  const { total, per_page, current_page: page, last_page: last } = meta;
  const from = total === 0 ? 0 : (page - 1) * per_page + 1;
  const to = Math.min(total, page * per_page);
  /**
   * @param {number} target
   * @param {string} text
   * @param {string} name
   */
  const button = (target, text, name) =>
    html`<button type="button" class="small" data-action=${`page-${name}`} disabled=${target < 1 || target > last || target === page} onClick=${() => onPage(target)}>${text}</button>`;
  return html`<nav class="pager" aria-label=${`${label}: pages`} data-testid="pager">
    <span class="small" data-testid="pager-range">${from.toLocaleString('en-US')}–${to.toLocaleString('en-US')} of <strong>${total.toLocaleString('en-US')}</strong></span>
    ${
      last > 1
        ? html`${button(1, '« First', 'first')}${button(page - 1, '‹ Newer', 'newer')}<span class="muted small">page ${page} of ${last}</span>${button(page + 1, 'Older ›', 'older')}${button(last, 'Last »', 'last')}`
        : null
    }
  </nav>`;
}

/**
 * "No deliveries with status failed", and a button that clears the filters that empty it.
 * @param {{ what: string, filters: Array<[string, string]>, onClear?: () => void, children?: ComponentChildren }} props
 */
export function EmptyList({ what, filters, onClear, children }) {
  const set = filters.filter(([, v]) => v);
  if (set.length === 0) return html`<p class="empty" data-testid="empty">No ${what} yet.${children ? html` ${children}` : null}</p>`;
  return html`<p class="empty" data-testid="empty">No ${what} with ${set.map(([k, v], i) => html`${i ? (i === set.length - 1 ? ' and ' : ', ') : ''}${k} <strong>${v}</strong>`)}.
    ${onClear ? html` <button type="button" class="small" data-action="clear-filters" onClick=${onClear}>Clear ${set.length === 1 ? 'the filter' : 'the filters'}</button>` : null}</p>`;
}

/**
 * The API's error message, shown where the action was taken.
 * @param {{ error: ShownError | undefined }} props
 */
export function ErrorBox({ error }) {
  if (!error) return null;
  return html`<div class="error" role="alert"><strong>${error.code ?? 'Error'}${error.status ? ` (${error.status})` : ''}</strong> ${error.message}</div>`;
}

/** @param {{ status: string }} props */
export function Status({ status }) {
  return html`<span class=${`status st-${status}`}>${status}</span>`;
}

/**
 * A virtual (or wall) ISO time, shortened to what changes: date and time to the second.
 * @param {{ iso: string | null | undefined }} props
 */
export function Time({ iso }) {
  if (!iso) return html`<span class="muted">-</span>`;
  return html`<time datetime=${iso} title=${iso}>${iso.replace('T', ' ').replace(/\.\d{3}Z$/, 'Z')}</time>`;
}

/**
 * What a fault does, in words (CONTRACT §12, §22): each kind it has, with its rate.
 * @param {import('./types').Fault} f
 */
export function faultEffects(f) {
  const latency =
    f.latency_ms === undefined ? '' : `+${typeof f.latency_ms === 'number' ? f.latency_ms : `${f.latency_ms.min}–${f.latency_ms.max}`} ms`;
  return [
    f.error ? `HTTP ${f.error.status}${f.error.rate !== undefined ? ` at ${f.error.rate}` : ''}` : '',
    latency,
    f.drop !== undefined ? `drop ${f.drop}` : '',
    f.reset !== undefined ? `reset ${f.reset}` : '',
    f.truncate !== undefined ? `cut after ${f.truncate} B` : '',
    f.malformed !== undefined ? `non-JSON ${f.malformed}` : '',
  ]
    .filter(Boolean)
    .join(', ');
}

/**
 * Where a fault's window (CONTRACT §22, virtual time) stands at the virtual `now`: `waiting`
 * (before from), `active` (inside, or no window), `over` (at or after to). Without a known now: `active`.
 * @param {import('./types').Fault} f
 * @param {string | undefined} now
 * @returns {'waiting' | 'active' | 'over'}
 */
export function faultState(f, now) {
  if (!f.window || !now) return 'active';
  const t = Date.parse(now);
  if (f.window.from && t < Date.parse(f.window.from)) return 'waiting';
  if (f.window.to && t >= Date.parse(f.window.to)) return 'over';
  return 'active';
}

/**
 * A fault's window and counts, for the banner and the faults table: `12:05 → 12:10`, skip, left.
 * @param {{ fault: import('./types').Fault }} props
 */
export function FaultWhen({ fault: f }) {
  const window = f.window
    ? html`<span class="fault-window">${f.window.from ? html`from <${Time} iso=${f.window.from} />` : 'until'}${f.window.from && f.window.to ? ' to ' : ' '}${f.window.to ? html`<${Time} iso=${f.window.to} />` : 'on'}</span>`
    : 'always';
  const skip = f.skip !== undefined ? `, skips ${f.skip} (${f.skipped} so far)` : '';
  return html`${window}${skip}`;
}

/** @param {{ value: unknown }} props */
export function Json({ value }) {
  // Focusable: a long body scrolls inside it, and the keyboard can scroll it too.
  return html`<pre class="json" tabindex="0">${typeof value === 'string' ? value : JSON.stringify(value, null, 2)}</pre>`;
}

/** @param {{ title: ComponentChildren, actions?: ComponentChildren, children?: ComponentChildren, id?: string }} props */
export function Section({ title, actions, children, id }) {
  // The heading takes focus (tabindex -1) when an action removed the control that had it.
  return html`<section class="panel" id=${id} aria-labelledby=${id ? `${id}-title` : undefined}>
    <div class="panel-head"><h2 id=${id ? `${id}-title` : undefined} tabindex="-1">${title}</h2>${actions ? html`<div class="panel-actions">${actions}</div>` : null}</div>
    ${children}
  </section>`;
}

/**
 * A row of KeyValue: label, value (a missing value shows as `-`), or null for no row.
 * @typedef {[string, ComponentChildren] | null} KeyValueRow
 */

/**
 * Rows of label → value.
 * @param {{ rows: KeyValueRow[] }} props
 */
export function KeyValue({ rows }) {
  return html`<dl class="kv">${rows.filter((row) => !!row).map(([k, v]) => html`<dt>${k}</dt><dd>${v ?? html`<span class="muted">-</span>`}</dd>`)}</dl>`;
}

/**
 * A select of `options` (strings or [value, label]) with an "any" entry when `any` is given.
 * @param {{ value: string, onChange: (value: string) => void, options: Array<string | [string, string]>, any?: string, label: string, name: string }} props
 */
export function Select({ value, onChange, options, any, label, name }) {
  return html`<label class="field"><span>${label}</span>
    <select name=${name} value=${value} onChange=${(/** @type {FieldEvent} */ e) => onChange(e.currentTarget.value)}>
      ${any !== undefined ? html`<option value="">${any}</option>` : null}
      ${options.map((o) => (Array.isArray(o) ? html`<option value=${o[0]}>${o[1]}</option>` : html`<option value=${o}>${o}</option>`))}
    </select>
  </label>`;
}

/**
 * @param {{ value: string, onInput: (value: string) => void, label: string, name: string, type?: string, placeholder?: string, size?: string, step?: string }} props
 */
export function Input({ value, onInput, label, name, type = 'text', placeholder, size, step }) {
  return html`<label class="field"><span>${label}</span>
    <input name=${name} type=${type} value=${value} placeholder=${placeholder} size=${size} step=${step} onInput=${(/** @type {FieldEvent} */ e) => onInput(e.currentTarget.value)} />
  </label>`;
}

/** @param {{ children?: ComponentChildren }} props */
export function Empty({ children }) {
  return html`<p class="empty">${children}</p>`;
}

/**
 * `12,345.67 NGN`.
 * @param {number | null | undefined} amount
 * @param {string | undefined} currency
 */
export function money(amount, currency) {
  if (amount === undefined || amount === null) return '-';
  return `${Number(amount).toLocaleString('en-US', { maximumFractionDigits: 8 })} ${currency ?? ''}`.trim();
}

/**
 * Links within the page are hashes: `#/orders/REF`.
 * @param {...string} parts
 */
export const link = (...parts) => `#/${parts.map(encodeURIComponent).join('/')}`;

// ---- faults in force: the banner and the inspector read the same list ------------------------

const FAULTS_CHANGED = 'ramp-sandbox:faults';

/** Tells every reader of the fault list that the page changed it (add, remove). */
export function faultsChanged() {
  dispatchEvent(new Event(FAULTS_CHANGED));
}

/**
 * GET /sandbox/faults, refetched when the page changes them, on each /v1 request (faults added
 * through the API show by the next request they could match) and on reconnect.
 * @returns {Resource<import('./types').Fault[]>}
 */
export function useFaults() {
  /** @type {Resource<import('./types').Fault[]>} */
  const faults = useResource('/sandbox/faults', ['request']);
  const reload = faults.reload;
  useEffect(() => {
    const on = () => {
      reload();
    };
    addEventListener(FAULTS_CHANGED, on);
    return () => removeEventListener(FAULTS_CHANGED, on);
  }, []);
  return faults;
}
