import type { Environment } from '../reference';
import type { WebhookEvent } from '../shared/events';
import { cutText } from '../shared/excerpt';
import { RESPONSE_EXCERPT, type Attempt } from './delivery';

/**
 * One delivery attempt as a listener is handed it (CONTRACT §17 `listen`): the exact body and
 * headers (signature, timestamp, delivery id, attempt), so it can be POSTed on unchanged, and
 * the id its answer is reported under.
 */
export interface ListenerAttempt {
  /** `<delivery id>.<attempt number>`: where the answer goes (`POST /sandbox/listen/attempts/{id}`). */
  id: string;
  delivery_id: string;
  client_id: string;
  environment: Environment;
  event: WebhookEvent;
  order: string | null;
  attempt: number;
  /** The path and query the signature covers (spec §6.4): the listener's `forward_to`. */
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** What a listener reports about one attempt: the receiver's answer, or why there was none. */
export interface ListenerAnswer {
  status?: number;
  /** The start of the receiver's answer (the log keeps its first 500 characters). */
  body?: string;
  duration_ms: number;
  error?: string;
}

/** Why the sandbox ends a listener's stream: a newer listener took the partner, or it stops. */
export type ListenerEnd = 'replaced' | 'closing';

/** Where a listener's attempts are written: the transport (an event stream) is the caller's. */
export interface ListenerSink {
  send(attempt: ListenerAttempt): void;
  end(reason: ListenerEnd): void;
}

export interface ListenerOptions {
  client_id: string;
  /** Only these events go to the listener (null: every event the partner subscribes to). */
  events: readonly WebhookEvent[] | null;
  /** The URL the listener forwards to: its path and query are what the signature covers. */
  forward_to: string | null;
}

/** A connected listener. */
export interface Listener extends Readonly<ListenerOptions> {
  readonly sink: ListenerSink;
  /** Ids of the attempts handed to it and not yet answered. */
  readonly pending: Set<string>;
}

interface Pending {
  listener: Listener;
  record: Attempt;
  started: number;
  timer: ReturnType<typeof setTimeout>;
  resolve: (ok: boolean) => void;
}

/**
 * The listeners connected to the sandbox, one per partner (the newest wins), and the attempts
 * handed to them that wait for an answer. Each pending attempt ends exactly once: answered,
 * timed out (the dispatcher's timeout, as a receiver's), or failed when its listener goes.
 * The dispatcher alone decides what is handed here.
 */
export function createListeners(options: { timeoutMs: number }) {
  const byPartner = new Map<string, Listener>();
  const pending = new Map<string, Pending>();

  /** Ends a pending attempt, writing the outcome into its log record; false when none waits. */
  function endHandOff(id: string, outcome: { ok: boolean; fill: (record: Attempt, elapsedMs: number) => void }): boolean {
    const entry = pending.get(id);
    if (!entry) return false;
    pending.delete(id);
    entry.listener.pending.delete(id);
    clearTimeout(entry.timer);
    outcome.fill(entry.record, Math.round(performance.now() - entry.started));
    entry.resolve(outcome.ok);
    return true;
  }

  const fail = (id: string, error: string) =>
    endHandOff(id, {
      ok: false,
      fill: (record, elapsed) => {
        record.error = error;
        record.duration_ms = elapsed;
      },
    });

  function disconnect(listener: Listener, why: string): void {
    if (byPartner.get(listener.client_id) === listener) byPartner.delete(listener.client_id);
    for (const id of [...listener.pending]) fail(id, why);
  }

  return {
    /** Connects a listener for a partner; one already connected is ended (`replaced`) and its pending attempts fail. */
    connect(listenerOptions: ListenerOptions, sink: ListenerSink): Listener {
      const listener: Listener = { ...listenerOptions, sink, pending: new Set() };
      const previous = byPartner.get(listener.client_id);
      byPartner.set(listener.client_id, listener);
      if (previous) {
        disconnect(previous, 'listener replaced by a newer one for this partner');
        previous.sink.end('replaced');
      }
      return listener;
    },
    /** The listener went (its stream closed): its pending attempts fail, and are retried on schedule. */
    disconnect: (listener: Listener) => disconnect(listener, 'listener disconnected'),
    /** The listener that takes the partner's attempts of this event, if one is connected. */
    pick(clientId: string, event: WebhookEvent): Listener | undefined {
      const listener = byPartner.get(clientId);
      return listener && (listener.events === null || listener.events.includes(event)) ? listener : undefined;
    },
    /** Hands an attempt to a listener; resolves true when its answer is a 2xx, false otherwise. */
    hand(listener: Listener, attempt: ListenerAttempt, record: Attempt): Promise<boolean> {
      return new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => fail(attempt.id, `timed out after ${options.timeoutMs} ms`), options.timeoutMs);
        pending.set(attempt.id, { listener, record, started: performance.now(), timer, resolve });
        listener.pending.add(attempt.id);
        listener.sink.send(attempt);
      });
    },
    /** Records a listener's answer; undefined when no attempt of that id waits for one. */
    answer(id: string, answer: ListenerAnswer): { succeeded: boolean } | undefined {
      const status = answer.status;
      const succeeded = status !== undefined && status >= 200 && status < 300 && answer.error === undefined;
      const answered = endHandOff(id, {
        ok: succeeded,
        fill: (record) => {
          record.http_status = status ?? null;
          record.response_excerpt = status === undefined ? null : cutText(answer.body ?? '', RESPONSE_EXCERPT);
          record.error = answer.error ?? (succeeded ? null : status === undefined ? 'no answer' : `HTTP ${status}`);
          record.duration_ms = Math.round(answer.duration_ms);
        },
      });
      return answered ? { succeeded } : undefined;
    },
    /** Fails every pending attempt (a reset or restore forgot their deliveries). */
    failPending(why: string): void {
      for (const id of [...pending.keys()]) fail(id, why);
    },
    /** Ends every listener's stream (`closing`) and fails what they had pending: the sandbox stops. */
    closeAll(): void {
      for (const listener of [...byPartner.values()]) {
        disconnect(listener, 'sandbox stopping');
        listener.sink.end('closing');
      }
    },
    get connected(): number {
      return byPartner.size;
    },
    get pendingCount(): number {
      return pending.size;
    },
  };
}

export type Listeners = ReturnType<typeof createListeners>;
