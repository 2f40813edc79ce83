/**
 * A partner's webhook endpoint, as you would write it in your own service: it verifies every
 * request with `verifyWebhook` (spec §6.4) and handles each delivery once, however often it
 * arrives (the sandbox, like the real API, retries until you answer 2xx, and can be told to
 * send a delivery again). Plain node:http so it runs anywhere; the same steps fit any framework.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyWebhook, WebhookVerificationError } from 'ramp-sandbox';

export interface WebhookCredentials {
  clientId: string;
  /** The `enc_*` key of the environment the webhooks belong to. */
  encryptionKey: string;
}

export interface WebhookServer {
  /** Where the sandbox should send webhooks. */
  url: string;
  /** Your "database": each order's last status, from the webhooks handled. */
  orders: Map<string, string>;
  /** Events handled, in order, each once. */
  handled: Array<{ event: string; reference: string; deliveryId: string }>;
  /** Deliveries that arrived again after being handled (acknowledged, not handled). */
  duplicates: number;
  /** Requests refused because they did not verify. */
  rejected: number;
  close(): Promise<void>;
}

/**
 * Starts the endpoint on 127.0.0.1 at a free port. `credentials` is read on each request (from
 * your config), so the endpoint can listen before the sandbox that issues the keys starts.
 */
export async function startWebhookServer(credentials: () => WebhookCredentials, path = '/webhooks/ramp'): Promise<WebhookServer> {
  const seen = new Set<string>();
  const state: Omit<WebhookServer, 'url' | 'close'> = { orders: new Map(), handled: [], duplicates: 0, rejected: 0 };
  const server = createServer(async (req, res) => {
    const raw = await readBody(req); // verify the bytes as received, before parsing
    try {
      const { clientId, encryptionKey } = credentials();
      const { event, data, deliveryId } = verifyWebhook(raw, req.headers, { clientId, encryptionKey, path: req.url ?? '' });
      const reference = String(data.reference);
      // Idempotent: a delivery keeps its svc-delivery-id through every retry.
      const key = deliveryId ?? `${event}:${reference}`;
      if (seen.has(key)) {
        state.duplicates += 1;
      } else {
        seen.add(key);
        state.handled.push({ event, reference, deliveryId: key });
        state.orders.set(reference, String(data.status));
      }
      res.writeHead(200).end('ok');
    } catch (error) {
      if (error instanceof WebhookVerificationError) {
        state.rejected += 1;
        res.writeHead(401).end(error.reason);
      } else {
        res.writeHead(500).end(); // not acknowledged: the sandbox retries it
      }
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(state, {
    url: `http://127.0.0.1:${port}${path}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
