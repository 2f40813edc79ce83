/**
 * A partner's webhook receiver (node:http), written from the spec alone: what issue 40 calls
 * the reference integration's receiver side.
 *
 * - Verifies `sha256=HMAC(enc_*, clientId|timestamp|POST|path|rawBody)` over the raw bytes as
 *   received, in constant time, before parsing anything (spec §6.4).
 * - Refuses a timestamp further than 300 s from its own clock (spec §6.5 rule 3; the sandbox
 *   signs with wall time, CONTRACT §2).
 * - Handles each `data.reference` + `event` once and answers a duplicate 200 all the same
 *   (spec §6.5 rule 4); an event older than one already handled is acknowledged too, and never
 *   moves the order back (CONTRACT §6).
 * - Answers at once and does the work afterwards (spec §6.5 rule 1); anything that fails before
 *   the answer is a 5xx, so the sender retries (rule 2).
 *
 * `Mistakes` (./mistakes) switches one of these off at a time for the readiness matrix.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { NO_MISTAKES, type Mistakes } from './mistakes';

/** Spec §6.5 rule 3 leaves the tolerance open; 300 s, as requests get (CONTRACT §3). */
const TOLERANCE_MS = 300_000;

/** The events the misspelling variant knows (spec §6.1, with `fiat_received` spelled right). */
const KNOWN_EVENTS = new Set([
  'order.created',
  'order.assigned',
  'order.asset_locked',
  'order.fiat_received',
  'order.asset_released',
  'order.asset_refunded',
  'order.fiat_sent',
  'order.settled',
  'order.cancelled',
  'order.expired',
]);

export interface ReceiverOptions {
  /** Read on each delivery: the receiver may listen before the keys exist. */
  credentials: () => { clientId: string; encryptionKey: string };
  /** The path it listens on (default `/webhooks/ramp`). */
  path?: string;
  mistakes?: Mistakes;
  /**
   * Wall ms the work on an `order.created` takes (opening the customer's ledger entry; default
   * 0). The reference does it after answering; the slow variant before.
   */
  workMs?: number;
  /**
   * Deliveries answered 503 at start, before anything else (default 0): an outage staged by the
   * driver (the receiver's database not up yet), so the sender's retry shows it recovers.
   */
  unavailableFor?: number;
  port?: number;
}

export interface HandledEvent {
  event: string;
  reference: string;
  status: string;
}

export interface Receiver {
  /** Where the sandbox should send the partner's webhooks. */
  url: string;
  /** Each order's status as the events handled say (never moved back by an older event). */
  orders: Map<string, { status: string; updatedAt: string }>;
  /** Events handled, each once, in the order they were handled. */
  handled: HandledEvent[];
  /** How many deliveries were answered with each HTTP status. */
  answers: Map<number, number>;
  /** Resolves when the work queued so far is done. */
  idle(): Promise<void>;
  close(): Promise<void>;
}

/** Starts the receiver on 127.0.0.1 (port 0: any free one). */
export async function startReceiver(options: ReceiverOptions): Promise<Receiver> {
  const mistakes = options.mistakes ?? NO_MISTAKES;
  const path = options.path ?? '/webhooks/ramp';
  const workMs = options.workMs ?? 0;
  let unavailable = options.unavailableFor ?? 0;
  const seen = new Set<string>();
  const orders: Receiver['orders'] = new Map();
  const handled: HandledEvent[] = [];
  const answers = new Map<number, number>();
  let queue: Promise<void> = Promise.resolve();
  /** Deliveries being answered now (the slow variant works before it answers). */
  const answering = new Set<Promise<void>>();

  const answer = (res: ServerResponse, status: number, text: string) => {
    answers.set(status, (answers.get(status) ?? 0) + 1);
    res.writeHead(status, { 'content-type': 'text/plain' }).end(text);
  };

  /** The work an event asks for; here it updates the "database". */
  const work = async (event: string, data: Record<string, unknown>) => {
    if (workMs > 0 && event === 'order.created') await new Promise((resolve) => setTimeout(resolve, workMs));
    const reference = String(data.reference);
    const updatedAt = String(data.updated_at ?? '');
    const current = orders.get(reference);
    if (!current || current.updatedAt <= updatedAt) orders.set(reference, { status: String(data.status), updatedAt });
    handled.push({ event, reference, status: String(data.status) });
  };

  const server = createServer((req, res) => {
    const handling = handle(req, res).catch(() => {
      if (!res.headersSent) answer(res, 500, 'error');
    });
    answering.add(handling);
    void handling.finally(() => answering.delete(handling));
  });

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (req.method !== 'POST' || new URL(req.url ?? '/', 'http://x').pathname !== path) return answer(res, 404, 'not found');
    let raw: Buffer;
    try {
      raw = await readRaw(req); // the bytes as received, before any parsing (spec §6.4)
    } catch {
      return answer(res, 400, 'unreadable body');
    }
    if (unavailable > 0) {
      unavailable--;
      return answer(res, 503, 'not ready yet'); // nothing stored: the retry is handled as new (spec §6.5 rule 2)
    }
    const { clientId, encryptionKey } = options.credentials();
    const timestamp = header(req, 'svc-timestamp');
    const signature = header(req, 'svc-signature');
    if (!timestamp || !signature || !/^\d{13}$/.test(timestamp))
      return answer(res, 401, 'missing or malformed svc-timestamp/svc-signature');

    let signedBody: Buffer | string = raw;
    if (mistakes.verifyParsedJson) {
      try {
        signedBody = JSON.stringify(JSON.parse(raw.toString('utf8')));
      } catch {
        return answer(res, 400, 'not JSON');
      }
    }
    // Path and query of our own URL as the request line gives them (spec §6.4).
    const canonical = Buffer.concat([Buffer.from(`${clientId}|${timestamp}|POST|${req.url ?? ''}|`), Buffer.from(signedBody)]);
    const expected = Buffer.from(`sha256=${createHmac('sha256', encryptionKey).update(canonical).digest('hex')}`);
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return answer(res, 401, 'bad signature');
    if (!mistakes.acceptStaleTimestamps && Math.abs(Date.now() - Number(timestamp)) > TOLERANCE_MS)
      return answer(res, 401, 'stale timestamp');

    let event: string;
    let data: Record<string, unknown>;
    try {
      const parsed = JSON.parse(raw.toString('utf8')) as { event?: unknown; data?: unknown };
      if (typeof parsed.event !== 'string' || !parsed.data || typeof parsed.data !== 'object') throw new Error('shape');
      event = parsed.event;
      data = parsed.data as Record<string, unknown>;
    } catch {
      return answer(res, 400, 'not a webhook body');
    }

    // Spec §6.1: the API spells it `order.fiat_recieved`; a receiver that knows only the right
    // spelling fails on it before anything is stored, so the sender retries it, in vain.
    if (mistakes.refuseMisspeltEvent && !KNOWN_EVENTS.has(event)) return answer(res, 500, `unknown event ${event}`);

    const reference = String(data.reference);
    if (mistakes.rejectOutOfOrder) {
      const current = orders.get(reference);
      if (current && String(data.updated_at ?? '') < current.updatedAt) return answer(res, 409, 'older than what we have');
    }
    const key = `${reference}|${event}`; // spec §6.5 rule 4: the idempotency key
    if (seen.has(key)) return answer(res, mistakes.rejectDuplicates ? 409 : 200, 'duplicate: already handled');
    seen.add(key);

    if (mistakes.slowAcknowledgement) {
      // The mistake: the work happens before the answer, so the sender waits for it.
      try {
        await work(event, data);
      } catch {
        seen.delete(key);
        return answer(res, 500, 'work failed');
      }
      return answer(res, 200, 'ok');
    }
    answer(res, 200, 'ok'); // spec §6.5 rule 1: acknowledge first, work afterwards
    queue = queue.then(() => work(event, data)).catch(() => {});
  };

  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    orders,
    handled,
    answers,
    idle: async () => {
      let last: Promise<void> | undefined;
      while (last !== queue || answering.size > 0) {
        last = queue;
        await Promise.all([last, ...answering]);
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function readRaw(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > 1 << 20) req.destroy(new Error('too large'));
      else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}
