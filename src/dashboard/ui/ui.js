// Shared pieces of the dashboard: the htm binding, data hooks and small components.
import { h } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import htm from 'htm';
import { get, onLive } from './api.js';
/** @import { ComponentChildren, VNode } from 'preact' */
/** @import { LiveKind, LiveMessage } from './types' */

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
 * @returns {Resource<T>}
 */
export function useResource(path, kinds = [], matches = () => true) {
  const [state, setState] = useState(/** @type {ResourceState<T>} */ ({ data: undefined, error: undefined, loading: true }));
  const busy = useRef(false);
  const again = useRef(false);
  const current = useRef(path);
  current.current = path;
  const matchRef = useRef(matches);
  matchRef.current = matches;

  /** @type {() => Promise<void>} */
  const load = useCallback(async () => {
    if (!current.current) return;
    if (busy.current) {
      again.current = true;
      return;
    }
    busy.current = true;
    const asked = current.current;
    try {
      /** @type {T} */
      const data = await get(asked);
      if (asked === current.current) setState({ data, error: undefined, loading: false });
    } catch (error) {
      if (asked === current.current) setState((s) => ({ data: s.data, error: shownError(error), loading: false }));
    } finally {
      busy.current = false;
      if (again.current) {
        again.current = false;
        load();
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
 * @typedef {<T>(label: string, fn: () => Promise<T>) => Promise<T | undefined>} RunAction
 */

/**
 * Runs an API action: `busy` while it runs, `error` with the API's message when it fails.
 * @returns {{ busy: boolean, error: ShownError | undefined, done: string | undefined, run: RunAction, clear: () => void }}
 */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState(/** @type {ShownError | undefined} */ (undefined));
  const [done, setDone] = useState(/** @type {string | undefined} */ (undefined));
  /** @type {RunAction} */
  const run = useCallback(async (label, fn) => {
    setBusy(true);
    setError(undefined);
    setDone(undefined);
    try {
      const result = await fn();
      setDone(label);
      return result;
    } catch (e) {
      setError(shownError(e));
      return undefined;
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, done, run, clear: () => setError(undefined) };
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

/** @param {{ value: unknown }} props */
export function Json({ value }) {
  return html`<pre class="json">${typeof value === 'string' ? value : JSON.stringify(value, null, 2)}</pre>`;
}

/** @param {{ title: ComponentChildren, actions?: ComponentChildren, children?: ComponentChildren, id?: string }} props */
export function Section({ title, actions, children, id }) {
  return html`<section class="panel" id=${id}>
    <header class="panel-head"><h2>${title}</h2>${actions ? html`<div class="panel-actions">${actions}</div>` : null}</header>
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
