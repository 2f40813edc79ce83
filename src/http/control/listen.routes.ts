import { answerEventStream } from '../api/event-stream';
import * as z from 'zod';
import type { PartnerRegistry } from '../../auth';
import { notFound } from '../../shared/errors';
import { SseStream, type CutInfo } from '../../shared/sse-stream';
import { WEBHOOK_EVENTS, type WebhookEvent } from '../../shared/events';
import type { Dispatcher, ListenerAttempt, ListenerEnd } from '../../webhooks';
import type { Api, AnyRouteSpec } from '../api/api';

/** The most a listener's answer may carry of the receiver's body (CONTRACT §17: the first 4 KiB). */
export const LISTEN_ANSWER_BODY_MAX = 4096;

/** A listener that does not read is cut off past this much unread (bytes): memory stays bounded. */
const UNREAD_LIMIT = 1 << 20;

/** Wall ms between keep-alive comments, so a proxy between a team sandbox and a laptop keeps the stream open. */
const KEEP_ALIVE_MS = 15_000;

const eventList = WEBHOOK_EVENTS.map((e) => e.replace('.', '\\.')).join('|');

/** `events=order.created,order.settled`: webhook event names separated by commas, each known. */
const EventsFilterSchema = z
  .string()
  .max(1000)
  .superRefine((text, ctx) => {
    const unknown = text.split(',').find((name) => !(WEBHOOK_EVENTS as readonly string[]).includes(name));
    if (unknown !== undefined) {
      ctx.addIssue({
        code: 'custom',
        message:
          unknown === ''
            ? 'give event names separated by commas, or leave events out'
            : `${unknown} is not a webhook event (one of ${WEBHOOK_EVENTS.join(', ')})`,
      });
    }
  })
  .regex(new RegExp(`^(?:${eventList})(?:,(?:${eventList}))*$`), 'must be webhook events separated by commas')
  .transform((text) => [...new Set(text.split(','))] as WebhookEvent[])
  .meta({
    example: 'order.created,order.settled',
    description:
      'only these events go to the listener (comma-separated); the partner’s others go to its webhook_url. Default: every event it subscribes to',
  });

/** CONTRACT §17 `GET /sandbox/listen` query. */
export const ListenQuerySchema = z.object({
  client_id: z.string().min(1).max(200),
  events: EventsFilterSchema.optional(),
  forward_to: z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
    .max(2048)
    .optional()
    .meta({
      description:
        'the URL the listener forwards to: attempts are signed over its path and query (spec §6.4), and the log shows it as the attempt’s url. Default: the path of the partner’s webhook_url, else /',
    }),
});

/** CONTRACT §17 `POST /sandbox/listen/attempts/{id}` body: what the receiver answered, or why it did not. */
export const ListenAnswerBodySchema = z
  .object({
    // Three digits, as an HTTP client reads them: the sandbox's own sends log a receiver's 999 as
    // it is, and a listener's report of one was refused (the attempt then timed out instead).
    status: z
      .number()
      .int()
      .min(100)
      .max(999)
      .optional()
      .meta({ description: 'the receiver’s HTTP status, three digits (2xx: delivered)' }),
    body: z
      .string()
      .max(LISTEN_ANSWER_BODY_MAX, `must be at most ${LISTEN_ANSWER_BODY_MAX} characters (send the first 4 KiB of the answer)`)
      .optional()
      .meta({ description: 'the start of the receiver’s answer; the log keeps its first 500 characters' }),
    duration_ms: z.number().nonnegative().max(86_400_000).meta({ description: 'how long the receiver took, wall ms' }),
    error: z.string().min(1).max(1000).optional().meta({ description: 'why there is no answer (connection refused, timed out, …)' }),
  })
  .refine((b) => b.status !== undefined || b.error !== undefined, {
    message: 'give the receiver’s status, or the error when it gave none',
    path: ['status'],
  })
  .meta({
    id: 'ListenAnswer',
    example: { status: 200, body: 'ok', duration_ms: 12 },
    anyOf: [{ required: ['status'] }, { required: ['error'] }],
  });

export const ListenAnswerResultSchema = z
  .object({
    id: z.string(),
    delivery_id: z.string(),
    attempt: z.number().int().positive(),
    succeeded: z.boolean().meta({ description: 'a 2xx status with no error: the delivery is done; otherwise it is retried on schedule' }),
  })
  .meta({ id: 'ListenAnswerResult', example: { id: 'dlv_8f3k2j.1', delivery_id: 'dlv_8f3k2j', attempt: 1, succeeded: true } });

const AttemptParamsSchema = z.object({ id: z.string().min(1).max(300) });
const admin = { auth: 'admin', tag: 'sandbox' } as const;

/** Not a JSON route, so not the control client's (it covers the JSON routes; the CLI reads this stream itself). */
const listenSpec = {
  ...admin,
  method: 'GET',
  path: '/sandbox/listen',
  operationId: 'listen',
  summary: 'Server-sent events: the partner’s delivery attempts, handed to this listener instead of POSTed to its webhook_url',
  description:
    'While this stream is open the partner’s attempts (of `events`, when given) are not POSTed: each is one `event: attempt` whose JSON data is `{id, delivery_id, client_id, environment, event, order, attempt, path, headers, body}`, signed over `path`; POST `headers` and `body` unchanged to your receiver and report its answer to `POST /sandbox/listen/attempts/{id}` within the webhook timeout. The stream opens with `event: ready` (`{client_id, events, forward_to, subscribed, timeout_ms}`) and ends with `event: end` (`{reason: "replaced" | "closing", message}`) when a newer listener takes the partner (the newest wins) or the sandbox stops. Attempts pending when the stream closes fail and are retried on the §5 schedule. Send the admin token as a bearer token (read the stream with fetch()).',
  query: ListenQuerySchema,
  data: z.void(),
  media: ['text/event-stream'],
  message: 'The listener’s event stream',
  errors: [404],
} as const satisfies AnyRouteSpec;

// Exported so the control client (src/client/control-client.ts) is typed by it.
export const answerListenAttemptSpec = {
  ...admin,
  method: 'POST',
  path: '/sandbox/listen/attempts/{id}',
  operationId: 'answerListenAttempt',
  summary: 'A listener reports the receiver’s answer to an attempt it was handed',
  description:
    'Logged like any attempt; a failure (not 2xx, or an error) is retried on the §5 schedule. 404: no attempt of that id was handed to a listener; 409: it has already ended (answered, timed out, or its listener went).',
  params: AttemptParamsSchema,
  body: ListenAnswerBodySchema,
  data: ListenAnswerResultSchema,
  message: 'Answer recorded',
  errors: [404, 409],
  // It ends an attempt in flight, as a receiver's answer over HTTP does: a streamed state save
  // took that delivery as in flight, so the answer need not wait for the save (CONTRACT §13).
  changesState: false,
} as const satisfies AnyRouteSpec;

const END_MESSAGE: Record<ListenerEnd, string> = {
  replaced: 'a newer listener for this partner connected: it receives the attempts now',
  closing: 'the sandbox is stopping',
};

/** CONTRACT §17 `listen`, the sandbox side: the listener's event stream and its answers. */
export function registerListenRoutes(
  api: Api,
  deps: { dispatcher: Dispatcher; partners: PartnerRegistry; timeoutMs: number; onCut?: (info: CutInfo) => void },
): void {
  const { dispatcher, partners } = deps;

  api.route(listenSpec, ({ query, ctx }) => {
    const partner = partners.get(query.client_id);
    if (!partner) throw notFound(`Partner ${query.client_id} not found`);
    // A listener that does not read is cut off (SseStream): its pending attempts fail and are retried.
    const stream = new SseStream({ stream: 'listen', limit: UNREAD_LIMIT, ...(deps.onCut ? { onCut: deps.onCut } : {}) });
    const write = (text: string) => void stream.send(text);
    const listener = dispatcher.listen(
      { client_id: partner.client_id, events: query.events ?? null, forward_to: query.forward_to ?? null },
      {
        send: (attempt: ListenerAttempt) => write(frame('attempt', attempt)),
        end: (reason) => {
          write(frame('end', { reason, message: END_MESSAGE[reason] }));
          stream.end();
        },
      },
    );
    const keepAlive = setInterval(() => write(': keep-alive\n\n'), KEEP_ALIVE_MS);
    keepAlive.unref();
    stream.on('close', () => {
      clearInterval(keepAlive);
      dispatcher.unlisten(listener);
    });
    write(
      frame('ready', {
        client_id: partner.client_id,
        events: listener.events,
        forward_to: listener.forward_to,
        subscribed: partner.events,
        timeout_ms: deps.timeoutMs,
      }),
    );
    answerEventStream(ctx, stream);
  });

  api.route(answerListenAttemptSpec, ({ params, body }) => dispatcher.answerListener(params.id, body));
}

function frame(event: 'ready' | 'attempt' | 'end', data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}
