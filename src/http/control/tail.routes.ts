import * as z from 'zod';
import { validationError } from '../../shared/errors';
import type { Api } from '../api/api';
import { answerEventStream } from '../api/event-stream';
import type { TailFeed } from '../inspector/tail-feed';

const Flag = z
  .enum(['true', 'false', '1', '0'])
  .transform((v) => v === 'true' || v === '1')
  .optional();

/** `GET /sandbox/tail` query: what to follow (both by default), and whose. */
const TailQuerySchema = z.object({
  // Examples `true`: each is valid alone and together (both false is refused below).
  requests: Flag.meta({ description: 'each /v1 request (default true)', example: 'true' }),
  deliveries: Flag.meta({ description: 'each finished webhook attempt (default true)', example: 'true' }),
  client_id: z.string().min(1).max(256).optional().meta({ description: "only this partner's requests and deliveries" }),
});

/**
 * CONTRACT §17 `ramp-sandbox tail`: the detailed live feed. Not part of the control client (not
 * JSON); the CLI reads it with fetch.
 */
export function registerTailRoute(api: Api, deps: { tail: TailFeed }): void {
  api.route(
    {
      method: 'GET',
      path: '/sandbox/tail',
      operationId: 'sandboxTail',
      summary: 'Server-sent events: each /v1 request and each finished webhook attempt, as they happen',
      description:
        "What `ramp-sandbox tail` follows. The stream opens with `event: ready` (the filter), then `event: request` (`{type, id, at, virtual_at, method, path, status, code?, message?, duration_ms, client_id?, environment?, auth, hint?, fault?}`: the request inspector's entry without headers and bodies; `hint` is the svc-sandbox-hint of a refused signature) and `event: delivery` (`{type, id, event, order, client_id, environment, attempt, manual, url, http_status, error, duration_ms, ok, delivery_status, next_attempt_at, at, virtual_at}`), one JSON object each. A reader that falls more than 256 KiB behind misses events; once it has caught up it gets `event: dropped` (`{type, dropped}`: how many); one that has left 1 MiB unread (held or missed) is cut off. The sandbox ends the stream when it stops. Send the admin token as a bearer token.",
      auth: 'admin',
      tag: 'sandbox',
      query: TailQuerySchema,
      data: z.void(),
      media: ['text/event-stream'],
      message: 'The event stream',
    },
    ({ ctx, query }) => {
      const requests = query.requests ?? true;
      const deliveries = query.deliveries ?? true;
      if (!requests && !deliveries) throw validationError('requests', 'follow requests, deliveries or both (both are false)');
      answerEventStream(
        ctx,
        deps.tail.open({ requests, deliveries, ...(query.client_id !== undefined ? { clientId: query.client_id } : {}) }),
      );
    },
  );
}
