import { setTimeout as sleep } from 'node:timers/promises';
import { readEventStream } from './event-stream';
import { SandboxError } from '../client/sandbox-error';
import type { ControlClient } from '../client/control-client';
import { WEBHOOK_EVENTS, type WebhookEvent } from '../shared/events';
import type { ErrorCode } from '../shared/errors';
import { cutText, cutUtf8 } from '../shared/excerpt';
import type { ListenerAnswer, ListenerAttempt } from '../webhooks';
import { onStdoutClosed } from './output';
import { describeFailure, REMOTE_USAGE, runRemote, UsageError, type RemoteContext } from './remote';

const USAGE = `Usage: ramp-sandbox listen --forward-to URL [--client-id ID] [--events E1,E2] [options]

Relays a partner's webhook deliveries from a running sandbox (a team sandbox on another host, say)
to a receiver on this machine. While it runs, the sandbox hands the partner's delivery attempts to
it instead of POSTing them to the partner's webhook_url: each is POSTed to --forward-to with its
exact body and headers (signed over --forward-to's path and query), and the receiver's answer goes
back to the sandbox's delivery log; a failure is retried on the sandbox's schedule. One line per
attempt. If the stream drops (the sandbox restarts), it reconnects. Ctrl-C stops it (exit 0), and
deliveries go to webhook_url again. A newer listener for the same partner takes over (this one exits 1).

  --forward-to URL    your receiver, e.g. http://127.0.0.1:3000/webhooks (required)
  --client-id ID      the partner (default: the sandbox's only partner, as on a fresh npm start;
                      required when it has more than one)
  --events E1,E2      only these events (default: every event the partner subscribes to); the
                      others still go to its webhook_url
${REMOTE_USAGE}

Example:
  ramp-sandbox listen --sandbox http://sandbox.team.internal:4010 --admin-token "$TOKEN" \\
    --client-id ptr_acme --forward-to http://127.0.0.1:3000/webhooks
`;

const OPTIONS = {
  'forward-to': { type: 'string' },
  'client-id': { type: 'string' },
  events: { type: 'string' },
} as const;

/** The most of a receiver's answer reported back (CONTRACT §17: the first 4 KiB). */
const ANSWER_BYTES = 4096;

/** Waits between reconnections: doubling from the first, up to the last. */
const BACKOFF_MS = { first: 500, max: 10_000 };

/** With no byte from the sandbox for this long (it sends a keep-alive every 15 s), the stream is taken as dead. */
const SILENCE_MS = 45_000;

/** `ramp-sandbox listen` (CONTRACT §17): relays a partner's deliveries to a local receiver. */
export async function main(argv: string[]): Promise<void> {
  await runRemote('listen', USAGE, OPTIONS, listen, argv);
}

/** The options of this verb, as parsed. */
interface ListenValues {
  'forward-to'?: string;
  'client-id'?: string;
  events?: string;
}

/** A newer listener took the partner: this one stops rather than take it back. */
class Replaced extends Error {
  override name = 'Replaced';
}

/** What the sandbox says when a listener connects. */
interface Ready {
  client_id: string;
  events: WebhookEvent[] | null;
  forward_to: string | null;
  subscribed: WebhookEvent[];
  timeout_ms: number;
}

async function listen(context: RemoteContext<ListenValues>): Promise<void> {
  const { values, positionals, baseUrl, adminToken, control } = context;
  if (positionals.length > 0) throw new UsageError(`unexpected argument ${positionals[0]}`);
  // Ctrl-C, or a reader of our output that went away (| head: EPIPE was an unhandled 'error'
  // with its stack, exit 1), ends the listener as Ctrl-C does: exit 0.
  const ended = new AbortController();
  context.signal.addEventListener('abort', () => ended.abort(), { once: true });
  if (context.signal.aborted) ended.abort();
  onStdoutClosed(() => ended.abort());
  const { signal } = ended;
  const forwardTo = parseForwardTo(values['forward-to']);
  const events = values.events === undefined ? undefined : parseEvents(values.events);
  const clientId = values['client-id'] ?? (await onlyPartner(control));

  const query = new URLSearchParams({ client_id: clientId, forward_to: forwardTo });
  if (events) query.set('events', events.join(','));
  const streamUrl = `${baseUrl}/sandbox/listen?${query}`;
  const headers: Record<string, string> = { accept: 'text/event-stream' };
  if (adminToken) headers.authorization = `Bearer ${adminToken}`;

  const say = (line: string) => process.stderr.write(`${line}\n`);
  let connectedBefore = false;
  let backoff = BACKOFF_MS.first;
  let timeoutMs = 15_000;

  while (!signal.aborted) {
    // One connection: aborted by Ctrl-C, or when the sandbox has been silent too long.
    const connection = new AbortController();
    const stop = () => connection.abort();
    signal.addEventListener('abort', stop);
    let silence: NodeJS.Timeout | undefined;
    const heard = () => {
      clearTimeout(silence);
      silence = setTimeout(() => connection.abort(new Error(`no word from the sandbox for ${SILENCE_MS / 1000} s`)), SILENCE_MS);
      silence.unref();
    };
    let why = 'the stream ended';
    try {
      const res = await fetch(streamUrl, { headers, signal: connection.signal });
      if (res.status !== 200) {
        const refusal = await refusalOf(res);
        // The sandbox refuses this listener (unknown partner, token): waiting will not change that.
        if (!connectedBefore || refusal instanceof SandboxError) throw refusal;
        throw new Error(refusal.message);
      }
      heard();
      const body = res.body!.pipeThrough(
        new TransformStream<Uint8Array, Uint8Array>({
          transform(chunk, out) {
            heard();
            out.enqueue(chunk);
          },
        }),
      );
      for await (const message of readEventStream(body)) {
        if (message.event === 'ready') {
          const ready = JSON.parse(message.data) as Ready;
          timeoutMs = ready.timeout_ms;
          say(`${connectedBefore ? 'Reconnected' : 'Ready'}: ${describeReady(ready, baseUrl, forwardTo)}`);
          for (const event of ready.events ?? []) {
            if (!ready.subscribed.includes(event))
              say(
                `  note: ${ready.client_id} does not subscribe to ${event}, so none will come (PATCH /sandbox/partners/${ready.client_id} events)`,
              );
          }
          connectedBefore = true;
          backoff = BACKOFF_MS.first;
        } else if (message.event === 'attempt') {
          void relay(JSON.parse(message.data) as ListenerAttempt, { forwardTo, timeoutMs, control, signal, baseUrl });
        } else if (message.event === 'end') {
          const end = JSON.parse(message.data) as { reason: string; message: string };
          if (end.reason === 'replaced') throw new Replaced(`${end.message}; this one stops`);
          why = end.message;
          break;
        }
      }
    } catch (error) {
      if (signal.aborted) return;
      // Before the first connection, or refused: one line and exit 1 (runRemote).
      if (!connectedBefore || error instanceof SandboxError || error instanceof Replaced) throw error;
      why =
        connection.signal.aborted && connection.signal.reason instanceof Error
          ? connection.signal.reason.message
          : describeFailure(error, baseUrl);
    } finally {
      clearTimeout(silence);
      signal.removeEventListener('abort', stop);
      connection.abort();
    }
    say(`Lost the sandbox at ${baseUrl} (${why}); reconnecting in ${seconds(backoff)}`);
    try {
      await sleep(backoff, undefined, { signal });
    } catch {
      return; // Ctrl-C while waiting
    }
    backoff = Math.min(backoff * 2, BACKOFF_MS.max);
  }
}

interface RelayDeps {
  forwardTo: string;
  timeoutMs: number;
  control: ControlClient;
  signal: AbortSignal;
  baseUrl: string;
}

/** POSTs one attempt to the local receiver as it came, prints a line, and reports the answer. */
async function relay(attempt: ListenerAttempt, deps: RelayDeps): Promise<void> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  let answer: ListenerAnswer;
  try {
    const res = await fetch(deps.forwardTo, {
      method: 'POST',
      headers: attempt.headers,
      body: attempt.body,
      redirect: 'manual',
      signal: AbortSignal.any([deps.signal, AbortSignal.timeout(deps.timeoutMs)]),
    });
    const body = await firstBytes(res, ANSWER_BYTES);
    answer = { status: res.status, body, duration_ms: elapsed() };
  } catch (error) {
    if (deps.signal.aborted) return; // Ctrl-C: the stream's close tells the sandbox
    answer = { error: describeForwardError(error, deps.timeoutMs), duration_ms: elapsed() };
  }
  const outcome = answer.status !== undefined ? String(answer.status) : `error: ${answer.error}`;
  process.stdout.write(
    `${attempt.event}  ${attempt.order ?? '-'}  ${attempt.delivery_id}  #${attempt.attempt}  → ${outcome}  ${answer.duration_ms} ms\n`,
  );
  try {
    await deps.control.answerListenAttempt({ params: { id: attempt.id }, body: answer });
  } catch (error) {
    if (deps.signal.aborted) return;
    const late = error instanceof SandboxError && error.status === 409;
    process.stderr.write(
      late
        ? `  the sandbox had already given up on ${attempt.id}: ${error.message}\n`
        : `  could not report the answer to ${attempt.id}: ${describeFailure(error, deps.baseUrl)}\n`,
    );
  }
}

/** The first `max` bytes of a response body as text (the rest is not read). */
async function firstBytes(res: Response, max: number): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < max) {
      const { value, done } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  // Cut on a character: a byte cut inside one would end the excerpt with U+FFFD (issue item 9).
  return cutText(Buffer.from(cutUtf8(Buffer.concat(chunks), max)).toString('utf8'), max);
}

/** The --forward-to URL, checked: an http(s) URL. */
function parseForwardTo(given: string | undefined): string {
  if (given === undefined) throw new UsageError('--forward-to URL is required (your receiver, e.g. http://127.0.0.1:3000/webhooks)');
  let url: URL;
  try {
    url = new URL(given);
  } catch {
    throw new UsageError(`--forward-to ${given} is not a URL (e.g. http://127.0.0.1:3000/webhooks)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`--forward-to ${given} must be an http(s) URL`);
  return given;
}

/** --events E1,E2: each a webhook event of spec §6.1. */
function parseEvents(given: string): WebhookEvent[] {
  const names = given.split(',').map((name) => name.trim());
  for (const name of names) {
    if (!(WEBHOOK_EVENTS as readonly string[]).includes(name)) {
      throw new UsageError(
        `--events: ${name === '' ? 'an empty name' : name} is not a webhook event (one of ${WEBHOOK_EVENTS.join(', ')})`,
      );
    }
  }
  return [...new Set(names)] as WebhookEvent[];
}

/** The default partner: the sandbox's only one; with more, the user has to say which. */
async function onlyPartner(control: ControlClient): Promise<string> {
  const partners = await control.listPartners();
  const [only] = partners;
  if (partners.length === 1 && only) return only.client_id;
  const ids = partners.slice(0, 5).map((p) => p.client_id);
  const more = partners.length > ids.length ? `, … (${partners.length} in all)` : '';
  throw new UsageError(
    partners.length === 0
      ? 'the sandbox has no partner: create one (POST /sandbox/partners)'
      : `the sandbox has ${partners.length} partners: pass --client-id (${ids.join(', ')}${more})`,
  );
}

/** The control API's refusal of the stream as a SandboxError, or an error naming what answered. */
async function refusalOf(res: Response): Promise<Error> {
  const text = await res.text().catch(() => '');
  try {
    const envelope = JSON.parse(text) as { code?: unknown; message?: unknown };
    if (typeof envelope.code === 'string')
      return new SandboxError(res.status, envelope.code as ErrorCode, String(envelope.message), 'GET /sandbox/listen');
  } catch {
    // not the sandbox's envelope (a proxy in front of it, say)
  }
  return new Error(`GET /sandbox/listen answered ${res.status} ${text.slice(0, 200)}`);
}

function describeReady(ready: Ready, baseUrl: string, forwardTo: string): string {
  const which = ready.events ? ready.events.join(', ') : 'every subscribed event';
  return `relaying ${ready.client_id}'s deliveries (${which}) from ${baseUrl} to ${forwardTo}. Ctrl-C to stop.`;
}

/** Why a POST to the local receiver got no answer, in a few words. */
function describeForwardError(error: unknown, timeoutMs: number): string {
  const e = error as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e?.name === 'TimeoutError') return `timed out after ${timeoutMs} ms`;
  const code = e?.cause?.code;
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return 'connection reset';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `host not found (${e.cause?.message ?? code})`;
  return e?.cause?.message ?? e?.message ?? String(error);
}

function seconds(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${ms / 1000} s`;
}
