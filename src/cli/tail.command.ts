import { SandboxError } from '../client/sandbox-error';
import type { TailDelivery, TailDropped, TailRequest } from '../http/inspector/tail-feed';
import type { ErrorCode } from '../shared/errors';
import { readEventStream } from './event-stream';
import { oneLine, onStdoutClosed, palette, useColour } from './output';
import { REMOTE_USAGE, runRemote, UsageError } from './remote';

const USAGE = `Usage: ramp-sandbox tail [--requests] [--deliveries] [--client-id ID] [--json] [options]

Follows a running sandbox: one line per /v1 request (method, path, status, error code, ms,
the partner, and the svc-sandbox-hint when a signature was refused) and one per webhook
attempt (event, order, attempt, the receiver's status or error, ms, delivery id and URL), as
they happen. Coloured on a terminal (NO_COLOR=1 turns it off), plain when piped. Ctrl-C
stops it (exit 0). A tail that reads too slowly misses events and is told how many.

  --requests          only /v1 requests
  --deliveries        only webhook attempts (without either flag: both)
  --client-id ID      only this partner's requests and deliveries
  --json              one JSON object a line, as GET /sandbox/tail sends them
${REMOTE_USAGE}

Example: ramp-sandbox tail --client-id ptr_demo_F1PN7Z6IXXKxDCApXZ2Z
`;

const OPTIONS = {
  requests: { type: 'boolean' },
  deliveries: { type: 'boolean' },
  'client-id': { type: 'string' },
  json: { type: 'boolean' },
} as const;

const ROUTE = 'GET /sandbox/tail';

/** `ramp-sandbox tail` (CONTRACT §17): reads `GET /sandbox/tail` until Ctrl-C or the sandbox stops. */
export async function main(argv: string[]): Promise<void> {
  await runRemote(
    'tail',
    USAGE,
    OPTIONS,
    async ({ values, positionals, baseUrl, adminToken, signal }) => {
      if (positionals.length > 0) throw new UsageError(`tail takes no arguments (given: ${oneLine(positionals.join(' '), 80)})`);
      const both = !values.requests && !values.deliveries;
      const query = new URLSearchParams({
        requests: String(both || values.requests === true),
        deliveries: String(both || values.deliveries === true),
      });
      if (values['client-id'] !== undefined) query.set('client_id', values['client-id']);
      // Ctrl-C, or a reader of our output that went away (| head), ends the tail quietly.
      const stop = new AbortController();
      signal.addEventListener('abort', () => stop.abort(), { once: true });
      if (signal.aborted) return;
      onStdoutClosed(() => stop.abort());

      const headers: Record<string, string> = { accept: 'text/event-stream' };
      if (adminToken) headers.authorization = `Bearer ${adminToken}`;
      let res: Response;
      try {
        res = await fetch(`${baseUrl}/sandbox/tail?${query}`, { headers, signal: stop.signal });
      } catch (error) {
        if (stop.signal.aborted) return;
        throw error;
      }
      if (res.status !== 200 || !res.body) throw await refusal(res);

      const colour = !values.json && useColour();
      const what = both ? 'requests and deliveries' : values.requests ? 'requests' : 'deliveries';
      try {
        for await (const { event, data } of readEventStream(res.body)) {
          if (event === 'ready') {
            const whose = values['client-id'] !== undefined ? ` of ${oneLine(values['client-id'], 80)}` : '';
            process.stderr.write(`ramp-sandbox tail: following ${what}${whose} at ${baseUrl}; Ctrl-C to stop\n`);
            continue;
          }
          if (event !== 'request' && event !== 'delivery' && event !== 'dropped') continue;
          if (values.json) {
            process.stdout.write(`${data}\n`);
            continue;
          }
          const line = describeTailEvent(JSON.parse(data) as TailRequest | TailDelivery | TailDropped, colour);
          process.stdout.write(`${line}\n`);
        }
      } catch (error) {
        if (stop.signal.aborted) return;
        const cause = (error as { cause?: { code?: string; message?: string } }).cause;
        throw new Error(`lost the connection to the sandbox at ${baseUrl} (${cause?.code ?? cause?.message ?? (error as Error).message})`);
      }
      if (stop.signal.aborted) return;
      process.stderr.write(`ramp-sandbox tail: the sandbox at ${baseUrl} ended the stream (it is stopping)\n`);
    },
    argv,
  );
}

/** One line for one event of the tail: a request, a webhook attempt, or what was dropped. */
export function describeTailEvent(e: TailRequest | TailDelivery | TailDropped, colour = false): string {
  const c = palette(colour);
  if (e.type === 'dropped') return c.yellow(`-- ${e.dropped} event${e.dropped === 1 ? '' : 's'} dropped: this tail read too slowly --`);
  const time = c.dim(e.at.slice(11, 23));
  if (e.type === 'request') {
    const status = paintStatus(c, e.status, String(e.status));
    const parts = [time, c.cyan('req '), `${e.method} ${oneLine(e.path, 200)}`, status];
    if (e.code) parts.push(paintStatus(c, e.status, e.code));
    parts.push(`${e.duration_ms} ms`);
    if (e.client_id) parts.push(c.dim(`${oneLine(e.client_id, 80)}${e.environment ? ` ${e.environment}` : ''}`));
    if (e.fault) parts.push(c.yellow(`fault ${e.fault}`));
    let line = parts.join(' ');
    if (e.message && (e.status >= 400 || e.status === 0)) line += `: ${oneLine(e.message, 200)}`;
    if (e.hint) line += ` ${c.yellow(`hint: ${oneLine(e.hint, 600)}`)}`;
    return line;
  }
  const answer = e.http_status !== null ? paintStatus(c, e.http_status, String(e.http_status)) : c.red(oneLine(e.error ?? 'failed', 200));
  const parts = [
    time,
    c.cyan('hook'),
    c.bold(e.event),
    e.order ?? '-',
    `#${e.attempt}${e.manual ? ' (manual)' : ''}`,
    answer,
    `${e.duration_ms} ms`,
    c.dim(`${e.id} → ${oneLine(e.url ?? '(no URL)', 200)}`),
  ];
  if (!e.ok && e.delivery_status === 'retrying' && e.next_attempt_at) parts.push(c.yellow(`retry at ${e.next_attempt_at}`));
  if (!e.ok && e.delivery_status === 'failed') parts.push(c.red('delivery failed'));
  return parts.join(' ');
}

function paintStatus(c: ReturnType<typeof palette>, status: number, text: string): string {
  if (status >= 200 && status < 300) return c.green(text);
  if (status >= 300 && status < 400) return c.cyan(text);
  if (status >= 400 && status < 500) return c.yellow(text);
  return c.red(text);
}

/** The control API's refusal of the stream (its error envelope) as the SandboxError runRemote reports. */
async function refusal(res: Response): Promise<Error> {
  const text = await res.text().catch(() => '');
  try {
    const envelope = JSON.parse(text) as { code?: unknown; message?: unknown };
    if (typeof envelope.code === 'string') return new SandboxError(res.status, envelope.code as ErrorCode, String(envelope.message), ROUTE);
  } catch {
    // not an envelope
  }
  return new Error(`${ROUTE}: unexpected answer ${res.status} ${oneLine(text, 200)}`);
}
