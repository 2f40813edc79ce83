import type { PartnerRegistry } from '../../auth';
import { inFiringOrder, ISO, nodeSlicing, type TimerTag, type VirtualClock, type WorkSlicing } from '../../clock';
import type { FaultStore } from '../../http/faults/fault.store';
import type { OrderService } from '../../orders';
import { shapeMisfit } from '../../orders/model';
import { validationError } from '../../shared/errors';
import { MAX_JSON_DEPTH, tooDeepField } from '../../shared/json-depth';
import type { ChangeGate } from '../../shared/change-gate';
import type { Ids } from '../../shared/ids';
import type { Dispatcher } from '../../webhooks';
import type { Market } from '../../reference';
import { STATE_FORMAT_VERSION, type StateDocument, type StateSummary, type TimerSnapshot } from './state.schema';

/** What a snapshot reads and a restore replaces: everything a sandbox holds but its config. */
export interface StateParts {
  seed: number;
  version: string;
  clock: VirtualClock;
  ids: Ids;
  partners: PartnerRegistry;
  orders: OrderService;
  dispatcher: Dispatcher;
  faults: FaultStore;
  /** Market rates (CONTRACT §22): its mode and scripts are part of the state. */
  market?: Market;
  /** Where requests that may change the state wait while the document streams (CONTRACT §13). */
  changes?: ChangeGate;
}

/** The whole state as one JSON document (CONTRACT §13). */
export function exportState(p: StateParts): StateDocument {
  const timers = timerSnapshots(p);
  const { partners, revoked_keys } = p.partners.exportState();
  const { orders, quotes, evicted_orders } = p.orders.exportState();
  return {
    version: STATE_FORMAT_VERSION,
    sandbox_version: p.version,
    seed: p.seed,
    ids: p.ids.exportState(),
    clock: p.clock.exportState(),
    partners,
    revoked_keys,
    quotes,
    orders,
    evicted_orders,
    timers,
    deliveries: p.dispatcher.exportState(),
    faults: p.faults.exportState(),
    ...chaosParts(p),
  };
}

/** CONTRACT §22's parts of the document, only when they say something (else the document is as before). */
function chaosParts(p: StateParts): Pick<StateDocument, 'market' | 'webhook_chaos'> {
  const market = p.market?.exportState();
  const chaos = p.dispatcher.chaos.exportState();
  return { ...(market ? { market } : {}), ...(chaos.length > 0 ? { webhook_chaos: chaos } : {}) };
}

/** A document is cut into strings of about this many characters (`exportStateChunks`), or buffers of as many bytes (`exportStateStream`). */
const CHUNK_CHARS = 4 * 1024 * 1024;
const CHUNK_BYTES = CHUNK_CHARS;

/** A pending timer as the document lists it (its tag says what re-creates it). */
type PendingTimer = { readonly due: number; readonly label: string; readonly tag: TimerTag | undefined };

/**
 * The document's pieces, taken now (CONTRACT §13): the small parts as JSON at once, each delivery
 * with an attempt in flight as it is now, and the lists of orders, quotes and deliveries whose
 * JSON is made as they are iterated; the timers (taken by the caller at the same instant) are
 * asked for in firing order when their turn comes. Joined, the pieces are
 * `JSON.stringify(exportState(p))` with a line break before each item of a list and before the
 * list's end (decision 029: a reader takes the lists line by line), as long as nothing changes
 * while they are iterated: the caller sees to that (at once, or holding the changes:
 * `exportStateStream`).
 */
function documentPieces(p: StateParts, timersInOrder: () => Iterable<PendingTimer>): Iterable<string> {
  const { partners, revoked_keys } = p.partners.exportState();
  const json = (value: unknown) => [JSON.stringify(value)];
  const timers = function* () {
    for (const { due, label, tag } of timersInOrder()) yield JSON.stringify({ due, label, tag });
  };
  // The keys in exportState's order (a test holds the two to the same text).
  const fields: Array<[keyof StateDocument, string[] | { items: Iterable<string> }]> = [
    ['version', json(STATE_FORMAT_VERSION)],
    ['sandbox_version', json(p.version)],
    ['seed', json(p.seed)],
    ['ids', json(p.ids.exportState())],
    ['clock', json(p.clock.exportState())],
    ['partners', { items: partners.map((x) => JSON.stringify(x)) }],
    ['revoked_keys', { items: revoked_keys.map((x) => JSON.stringify(x)) }],
    ['quotes', { items: p.orders.quotesJson() }],
    ['orders', { items: p.orders.ordersJson() }],
    ['evicted_orders', json(p.orders.evictedCount)],
    ['timers', { items: timers() }],
    ['deliveries', { items: p.dispatcher.recordsJson() }],
    ['faults', json(p.faults.exportState())],
    ...Object.entries(chaosParts(p)).map(([key, value]) => [key as keyof StateDocument, json(value)] as [keyof StateDocument, string[]]),
  ];
  return (function* () {
    for (const [i, [key, value]] of fields.entries()) {
      yield `${i === 0 ? '{' : ','}${JSON.stringify(key)}:`;
      if (Array.isArray(value)) {
        yield* value;
        continue;
      }
      // One item a line (decision 029): still the same JSON, and a reader can take it line by line.
      yield '[';
      let first = true;
      for (const item of value.items) {
        yield first ? `\n${item}` : `,\n${item}`;
        first = false;
      }
      yield '\n]';
    }
    yield '}';
  })();
}

/**
 * The same document as `JSON.stringify(exportState(p))` (one item of a list a line), as a list of strings of about 4 Mi
 * characters (CONTRACT §13): V8 caps one string at ~512 MiB, which ~190,000 completed orders
 * reach, so a large state is never one string, and its orders and deliveries are written one by
 * one rather than copied first. Taken at one instant, in one go: the event loop waits for it (in
 * process and in tests; the routes and the save stream it with `exportStateStream`).
 */
export function exportStateChunks(p: StateParts): string[] {
  const chunks: string[] = [];
  let parts: string[] = [];
  let size = 0;
  for (const piece of documentPieces(p, () => timerSnapshots(p))) {
    parts.push(piece);
    size += piece.length;
    if (size >= CHUNK_CHARS) {
      chunks.push(parts.join(''));
      parts = [];
      size = 0;
    }
  }
  if (parts.length > 0) chunks.push(parts.join(''));
  return chunks;
}

/**
 * The document of `exportStateChunks`, streamed as UTF-8 bytes (CONTRACT §13 "stream it", §9 "nothing blocks for
 * long"): taken at one instant, then written in slices of about `sliceMs` of work, the event loop
 * running between them, so other requests are answered during a save. Meanwhile nothing changes
 * what is being written: requests that may change the state wait (`ChangeGate`; the stream starts
 * once those under way have ended), no timer fires (`VirtualClock#hold`), and an attempt in flight
 * that ends meanwhile changes only its own delivery, taken as in flight (a restore sends it
 * again). Ending the stream early (the reader went) lets the changes go on.
 */
export async function* exportStateStream(
  p: StateParts,
  options: { slicing?: Partial<WorkSlicing>; onTaken?: () => void } = {},
): AsyncGenerator<Buffer> {
  const slicing = { ...nodeSlicing, ...options.slicing };
  const open = p.changes ? await p.changes.close() : () => {};
  const letGo = p.clock.hold();
  try {
    // One instant: the timers (in no order yet) and the rest of the document, taken together.
    const pending = p.clock.pendingTimersUnordered();
    // (a label is made from its tag when read: made here only for the error)
    for (const timer of pending) if (!timer.tag) throw new Error(`timer "${timer.label}" has no tag: it could not be restored`);
    let ordered: Iterable<PendingTimer> = [];
    const pieces = documentPieces(p, () => ordered);
    options.onTaken?.(); // at the document's instant (a save's summary is of what it writes)
    ordered = await inFiringOrder(pending, slicing);
    // Each piece is encoded straight into the chunk's bytes: no joined string to flatten and
    // encode again (store issue item 7). A slice's bytes are yielded as a view of the chunk, and
    // the next slice's written after them (the views never overlap): a chunk is allocated only
    // when one is full, so a document held by a slow reader (GET /sandbox/state) takes its own
    // size, not a chunk per slice.
    let chunk = Buffer.allocUnsafe(CHUNK_BYTES);
    let from = 0;
    let at = 0;
    let sliceStart = slicing.now();
    for (const piece of pieces) {
      // UTF-8 takes at most 3 bytes a UTF-16 unit: a piece that might not fit starts a new chunk.
      if (at + piece.length * 3 > chunk.length) {
        if (at > from) yield chunk.subarray(from, at);
        chunk = Buffer.allocUnsafe(Math.max(CHUNK_BYTES, piece.length * 3));
        from = at = 0;
      }
      at += chunk.write(piece, at);
      if (slicing.now() - sliceStart >= slicing.sliceMs) {
        if (at > from) yield chunk.subarray(from, at);
        from = at;
        await slicing.yield();
        sliceStart = slicing.now();
      }
    }
    if (at > from) yield chunk.subarray(from, at);
  } finally {
    letGo();
    open();
  }
}

function timerSnapshots(p: StateParts): TimerSnapshot[] {
  return p.clock.pendingTimers().map(({ due, label, tag }) => {
    if (!tag) throw new Error(`timer "${label}" has no tag: it could not be restored`);
    return { due, label, tag } as TimerSnapshot;
  });
}

/**
 * Replaces the whole state with `doc` (already shape-checked by its schema): the references
 * inside it are checked first (422 naming the field, nothing changed), then every part is
 * replaced and every timer re-created in its firing order. If anything still fails, the
 * state from before is put back: a restore fully succeeds or changes nothing.
 */
export function restoreState(p: StateParts, doc: StateDocument): void {
  checkReferences(p, doc);
  const before = exportState(p);
  try {
    apply(p, doc);
  } catch (error) {
    apply(p, before);
    throw error;
  }
}

export function summarise(p: StateParts): StateSummary {
  return {
    partners: p.partners.list().length,
    orders: p.orders.store.orders.size,
    quotes: p.orders.store.quotes.size,
    deliveries: p.dispatcher.list().length,
    timers: p.clock.pending,
    clock: { now: ISO(p.clock.now()), mode: p.clock.mode },
  };
}

function apply(p: StateParts, doc: StateDocument): void {
  p.clock.restore(doc.clock);
  p.ids.restore(doc.ids);
  p.partners.restore({ partners: doc.partners, revoked_keys: doc.revoked_keys });
  p.orders.restoreState({ orders: doc.orders, quotes: doc.quotes, evicted_orders: doc.evicted_orders });
  p.dispatcher.restoreState(doc.deliveries);
  p.faults.restore(doc.faults);
  p.market?.restore(doc.market);
  p.dispatcher.chaos.restore(doc.webhook_chaos);
  doc.timers.forEach((timer, i) => {
    const revived = p.orders.reviveTimer(timer.tag, timer.due) || p.dispatcher.reviveTimer(timer.tag, timer.due);
    if (!revived) throw validationError(`timers.${i}.tag`, `names nothing in this document (${timer.label})`);
  });
}

/**
 * The checks a schema cannot make, or makes at a cost a large restore feels (CONTRACT §13), with
 * the rules of the routes that make each part: the seed, unique ids, keys no two partners share,
 * every reference resolving (the partner of each order, quote, delivery and revoked key; the
 * order of each delivery; the record each timer is for), each order's and quote's parts on the
 * side its type gives them, text the routes trim kept trimmed, metadata no deeper than a create's
 * body takes, and no more automatic attempts than a delivery logs. Ranges (instants, speed, id
 * draws, fault fields, key prefixes) are the schemas' own. The first failure is a 422 naming its
 * field.
 */
function checkReferences(p: StateParts, doc: StateDocument): void {
  if (doc.seed !== p.seed) {
    throw validationError(
      'seed',
      `the state was saved with seed ${doc.seed}; start the sandbox with --seed ${doc.seed} to load it (this one runs seed ${p.seed})`,
    );
  }
  if (doc.clock.now_ms < doc.clock.start_ms) throw validationError('clock.now_ms', 'is before clock.start_ms');
  const unique = (field: string, values: string[]) => {
    const seen = new Set<string>();
    values.forEach((v, i) => {
      if (seen.has(v)) throw validationError(`${field}.${i}`, `${v} appears twice`);
      seen.add(v);
    });
    return seen;
  };
  const partners = unique(
    'partners',
    doc.partners.map((x) => x.client_id),
  );
  const orders = unique(
    'orders',
    doc.orders.map((o) => o.reference),
  );
  const deliveries = unique(
    'deliveries',
    doc.deliveries.map((d) => d.id),
  );
  const quotes = unique(
    'quotes',
    doc.quotes.map((q) => q.quote_id),
  );
  unique(
    'faults.faults',
    doc.faults.faults.map((f) => f.id),
  );
  // A key resolves to one partner: shared keys let one partner act as another (and a reset that
  // dropped the other took the demo partner's keys with it).
  const keys = new Map<string, string>();
  const claim = (key: string, owner: string, field: string) => {
    const holder = keys.get(key);
    if (holder !== undefined)
      throw validationError(field, `is already a key of ${holder === owner ? 'this partner' : `partner ${holder}`}`);
    keys.set(key, owner);
  };
  // Text its route trims (`z.string().trim().min(1)`) is kept trimmed and not blank: refused
  // rather than trimmed, so a restore keeps what the document says.
  const trimmed = (field: string, text: string | null) => {
    if (text !== null && (text.length === 0 || text.trim() !== text)) {
      throw validationError(field, 'must not be blank or start or end with white space (its route trims it)');
    }
  };
  doc.partners.forEach((partner, i) => {
    trimmed(`partners.${i}.name`, partner.name);
    for (const env of ['test', 'live'] as const) {
      for (const [name, key] of Object.entries(partner.keys[env])) claim(key, partner.client_id, `partners.${i}.keys.${env}.${name}`);
    }
  });
  doc.revoked_keys.forEach((r, i) => {
    if (!partners.has(r.client_id)) throw validationError(`revoked_keys.${i}.client_id`, `partner ${r.client_id} is not in partners`);
    claim(r.key, r.client_id, `revoked_keys.${i}.key`);
  });
  const owned = (field: string, clientId: string) => {
    if (!partners.has(clientId)) throw validationError(field, `partner ${clientId} is not in partners`);
  };
  // Each part on the side its type gives it: a check here rather than a refinement of the item
  // schemas, where zod's refinements cost a restore of 200,000 orders about 0.1-0.5 s.
  const fitted = (field: string, o: Parameters<typeof shapeMisfit>[0]) => {
    const misfit = shapeMisfit(o);
    if (misfit) throw validationError(`${field}.${misfit.path}`, misfit.message);
  };
  for (const [i, o] of doc.orders.entries()) {
    owned(`orders.${i}.clientId`, o.clientId);
    fitted(`orders.${i}`, o);
    trimmed(`orders.${i}.merchant_reference`, o.merchant_reference);
    trimmed(`orders.${i}.customer_reference`, o.customer_reference);
    // Metadata as POST /v1/orders takes it: in a body nested at most MAX_JSON_DEPTH levels.
    if (o.metadata !== null && tooDeepField({ metadata: o.metadata }) !== undefined) {
      throw validationError(
        `orders.${i}.metadata`,
        `nested deeper than ${MAX_JSON_DEPTH} levels in its create's body (POST /v1/orders refuses it)`,
      );
    }
  }
  for (const [i, q] of doc.quotes.entries()) {
    owned(`quotes.${i}.clientId`, q.clientId);
    fitted(`quotes.${i}`, q);
  }
  doc.deliveries.forEach((d, i) => {
    owned(`deliveries.${i}.client_id`, d.client_id);
    // Each automatic attempt is logged as it starts (so its count cannot outgrow what it saves).
    if (d.automaticAttempts > d.attempts.length) {
      throw validationError(`deliveries.${i}.automaticAttempts`, `is more than the ${d.attempts.length} attempts logged`);
    }
    if (d.order !== null && !orders.has(d.order)) throw validationError(`deliveries.${i}.order`, `order ${d.order} is not in orders`);
  });
  p.market?.check(doc.market);
  unique(
    'webhook_chaos',
    (doc.webhook_chaos ?? []).map((c) => c.client_id),
  );
  for (const [i, c] of (doc.webhook_chaos ?? []).entries()) owned(`webhook_chaos.${i}.client_id`, c.client_id);
  doc.timers.forEach((t, i) => {
    const tag = t.tag;
    if (tag.kind === 'order' && !orders.has(tag.reference)) {
      throw validationError(`timers.${i}.tag.reference`, `order ${tag.reference} is not in orders`);
    }
    if (tag.kind === 'delivery_retry' && !deliveries.has(tag.id)) {
      throw validationError(`timers.${i}.tag.id`, `delivery ${tag.id} is not in deliveries`);
    }
    if (tag.kind === 'quote_forget' && !quotes.has(tag.quote_id)) {
      throw validationError(`timers.${i}.tag.quote_id`, `quote ${tag.quote_id} is not in quotes`);
    }
  });
}
