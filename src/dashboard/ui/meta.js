// What the page is given with its HTML (GET /sandbox/dashboard): the vocabularies its selects
// offer (statuses, events, …, the server's own lists) and the demo partner's client id. Read
// once, synchronously: no request, and no list kept here.
/** @import { Bootstrap, Meta } from './types' */

/** @returns {Bootstrap} */
function read() {
  const text = document.getElementById('bootstrap')?.textContent;
  if (!text) throw new Error('The dashboard page has no bootstrap data (#bootstrap)');
  return /** @type {Bootstrap} */ (JSON.parse(text));
}

export const bootstrap = read();

/** `{statuses, events, types, kyb, deliveryStatuses, environments, payoutOutcomes}`. */
export const meta = bootstrap.vocabulary;

/**
 * Each order type's lifecycle graph, read from the machine (with the sandbox's timings): the
 * readiness screen draws coverage on it without an order of that type at hand.
 * @type {Record<string, import('./types').LifecycleGraph>}
 */
export const lifecycles = bootstrap.lifecycles;

/** The vocabularies, as a hook (kept for the screens that read them so). @returns {Meta} */
export function useMeta() {
  return meta;
}
