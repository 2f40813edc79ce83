import type { ControlBody, ControlData } from '../client/control-client';
import { WEBHOOK_EVENTS, type WebhookEvent } from '../shared/events';
import { oneLine, onStdoutClosed, palette, useColour } from './output';
import { REMOTE_USAGE, runRemote, UsageError } from './remote';

const USAGE = `Usage: ramp-sandbox trigger EVENT [--order REF] [--client-id ID] [--url URL] [options]

Sends one signed delivery of EVENT now (POST /sandbox/webhooks/send), logged like any other,
and prints its id, where it went, the receiver's status and how long it took. Exit 1 when
the receiver did not answer 2xx (the delivery is then retried on the sandbox's schedule).

EVENT is one of: ${WEBHOOK_EVENTS.join(', ')}

  --order REF         the order whose summary is sent (its partner and environment)
  --data JSON         fields of data to send or override (without --order: the whole data)
  --client-id ID      the partner (default: the order's partner, else the demo partner)
  --url URL           send here instead of the partner's webhook_url
  --json              print the delivery as JSON (as GET /sandbox/webhooks/deliveries/{id})
${REMOTE_USAGE}

Example: ramp-sandbox trigger order.settled --order ORD1234 --url http://127.0.0.1:3000/webhooks
`;

const OPTIONS = {
  order: { type: 'string' },
  data: { type: 'string' },
  'client-id': { type: 'string' },
  url: { type: 'string' },
  json: { type: 'boolean' },
} as const;

/** `ramp-sandbox trigger` (CONTRACT §17). */
export async function main(argv: string[]): Promise<void> {
  await runRemote(
    'trigger',
    USAGE,
    OPTIONS,
    async ({ values, positionals, control }) => {
      const [event, ...extra] = positionals;
      if (event === undefined) throw new UsageError('give the EVENT to send');
      if (extra.length > 0) throw new UsageError(`one EVENT at a time (also given: ${oneLine(extra.join(' '), 80)})`);
      if (!isEvent(event)) throw new UsageError(`unknown event '${oneLine(event, 80)}'`);
      const body: ControlBody<'sendWebhook'> = { event };
      if (values.order !== undefined) body.order = values.order;
      if (values['client-id'] !== undefined) body.client_id = values['client-id'];
      if (values.url !== undefined) body.url = values.url;
      if (values.data !== undefined) body.data = parseData(values.data);
      const delivery = await control.sendWebhook({ body });
      onStdoutClosed(() => process.exit(process.exitCode ?? 0));
      const attempt = delivery.attempts.at(-1);
      const ok = attempt?.http_status != null && attempt.http_status >= 200 && attempt.http_status < 300;
      process.stdout.write(values.json ? `${JSON.stringify(delivery)}\n` : `${describeDelivery(delivery, useColour())}\n`);
      if (!ok) process.exitCode = 1;
    },
    argv,
  );
}

/**
 * One line for a delivery and its last attempt:
 * `dlv_… order.settled ORD… → http://…/hooks 200 in 12 ms`, or the error and what comes next.
 */
export function describeDelivery(delivery: ControlData<'sendWebhook'>, colour = false): string {
  const c = palette(colour);
  const attempt = delivery.attempts.at(-1);
  const head = `${delivery.id} ${c.bold(delivery.event)}${delivery.order ? ` ${delivery.order}` : ''}`;
  if (!attempt) return `${head}: no attempt was made`;
  const to = `→ ${attempt.url ?? '(no URL)'}`;
  const status = attempt.http_status;
  const ok = status !== null && status >= 200 && status < 300;
  const answer = ok ? c.green(String(status)) : c.red(status !== null ? String(status) : oneLine(attempt.error ?? 'failed', 200));
  const next = delivery.next_attempt_at
    ? `; next attempt at ${delivery.next_attempt_at} (virtual)`
    : delivery.status === 'failed'
      ? '; the delivery has failed'
      : '';
  return `${head} ${to} ${answer} in ${attempt.duration_ms} ms${ok ? '' : next}`;
}

function isEvent(name: string): name is WebhookEvent {
  return (WEBHOOK_EVENTS as readonly string[]).includes(name);
}

function parseData(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UsageError(`--data is not JSON: ${oneLine(text, 80)}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new UsageError('--data must be a JSON object, e.g. {"status":"failed"}');
  return value as Record<string, unknown>;
}
