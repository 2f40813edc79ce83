// The page's address: `#/screen/id?filter=…&page=…` (CONTRACT §15: every item has a link, and a
// list's filters and page live in the hash, so a reload or a shared link shows the same thing).
import { useEffect, useState } from 'preact/hooks';

/**
 * The hash, read: the screen, the item's id when there is one, and the list's parameters.
 * @typedef {{ screen: string, id: string | undefined, params: Record<string, string> }} Route
 */

const CHANGED = 'ramp-sandbox:route';

/** @returns {Route} */
export function readRoute() {
  const hash = location.hash.replace(/^#\/?/, '');
  const q = hash.indexOf('?');
  const path = q < 0 ? hash : hash.slice(0, q);
  const [screen = '', id] = path.split('/').map(safeDecode);
  /** @type {Record<string, string>} */
  const params = {};
  for (const [k, v] of new URLSearchParams(q < 0 ? '' : hash.slice(q + 1))) if (v) params[k] = v;
  return { screen: screen || 'orders', id: id || undefined, params };
}

/** @param {string} s */
function safeDecode(s) {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/**
 * The hash of a screen (and item) with parameters; empty values are left out.
 * @param {string} screen
 * @param {string | undefined} [id]
 * @param {Record<string, string | number | undefined>} [params]
 */
export function hashOf(screen, id, params = {}) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '' && !(k === 'page' && String(v) === '1')) q.set(k, String(v));
  const query = q.toString();
  return `#/${encodeURIComponent(screen)}${id ? `/${encodeURIComponent(id)}` : ''}${query ? `?${query}` : ''}`;
}

/**
 * Goes to `hash`: a new history entry (a page, a screen), or in place (`replace`: each key typed
 * in a search box is not one).
 * @param {string} hash
 * @param {{ replace?: boolean }} [options]
 */
export function go(hash, { replace = false } = {}) {
  if (location.hash === hash) return;
  if (replace) {
    history.replaceState(history.state, '', hash);
    dispatchEvent(new Event(CHANGED));
  } else {
    location.hash = hash;
  }
}

/** The current route, kept up to date. */
export function useRoute() {
  const [route, setRoute] = useState(readRoute);
  useEffect(() => {
    const on = () => setRoute(readRoute());
    addEventListener('hashchange', on);
    addEventListener(CHANGED, on);
    return () => {
      removeEventListener('hashchange', on);
      removeEventListener(CHANGED, on);
    };
  }, []);
  return route;
}

/**
 * A list's filters and page, kept in the hash of `screen`: `[values, set]`. `set(patch)` puts
 * the page back to 1 unless the patch names it; text typed in a box replaces the entry
 * (`{ replace: true }`), a choice or a page makes a new one.
 * @template {Record<string, string>} F
 * @param {string} screen
 * @param {F} defaults the filters, all '' when unset
 * @returns {[F & { page: number }, (patch: Partial<F> & { page?: number }, options?: { replace?: boolean }) => void]}
 */
export function useListParams(screen, defaults) {
  const route = useRoute();
  /** @type {F} */
  const values = { ...defaults };
  for (const key of Object.keys(defaults)) {
    const v = route.params[key];
    if (v !== undefined) /** @type {Record<string, string>} */ (values)[key] = v;
  }
  const page = Math.max(1, Math.floor(Number(route.params.page)) || 1);
  const set = (/** @type {Partial<F> & { page?: number }} */ patch, { replace = false } = {}) => {
    const next = { ...values, page: 1, ...patch };
    go(hashOf(screen, undefined, next), { replace });
  };
  return [{ ...values, page }, set];
}
