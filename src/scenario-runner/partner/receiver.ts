import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { verifyWebhook, WebhookVerificationError, type VerifiedWebhook } from '../../client/verify-webhook';
import type { PartnerIdentity } from './client';

export interface ReceivedWebhook {
  event: string;
  reference: string | undefined;
  deliveryId: string | undefined;
  duplicate: boolean;
}

/**
 * The built-in target: a webhook receiver on 127.0.0.1 that behaves as a careful partner
 * should. It verifies every signature (spec §6.4) and the timestamp, answering 401 when either
 * fails; it acknowledges duplicates (same data.reference + event) with 200 and does not process
 * them twice. One receiver serves many scenarios, each on its own path.
 */
export class BuiltInReceiver {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private readonly partners = new Map<string, PartnerIdentity>();
  private readonly seen = new Map<string, Set<string>>();
  readonly received = new Map<string, ReceivedWebhook[]>();
  readonly rejected = new Map<string, string[]>();
  /** The `svc-delivery-id` of each rejection, beside `rejected` (a readiness probe's is not the scenario's). */
  readonly rejectedIds = new Map<string, Array<string | undefined>>();
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const path = req.url ?? '/';
        const key = /^\/hooks\/([^/?]+)/.exec(path)?.[1];
        const partner = key ? this.partners.get(key) : undefined;
        if (!key || !partner) {
          res.statusCode = 404;
          res.end('unknown scenario');
          return;
        }
        const raw = Buffer.concat(chunks).toString('utf8');
        let verified: VerifiedWebhook | undefined;
        let lastError: unknown;
        for (const env of ['test', 'live'] as const) {
          try {
            verified = verifyWebhook(raw, req.headers, {
              clientId: partner.client_id,
              encryptionKey: partner.keys[env].encryption_key,
              path,
            });
            break;
          } catch (error) {
            lastError = error;
          }
        }
        if (!verified) {
          const reason = lastError instanceof WebhookVerificationError ? lastError.reason : String(lastError);
          this.rejected.get(key)?.push(reason);
          const id = req.headers['svc-delivery-id'];
          this.rejectedIds.get(key)?.push(Array.isArray(id) ? id[0] : id);
          res.statusCode = 401;
          res.end(reason);
          return;
        }
        const reference = typeof verified.data.reference === 'string' ? verified.data.reference : undefined;
        const id = `${reference}|${verified.event}`;
        const seen = this.seen.get(key)!;
        const duplicate = seen.has(id);
        seen.add(id);
        this.received.get(key)!.push({ event: verified.event, reference, deliveryId: verified.deliveryId, duplicate });
        res.statusCode = 200;
        res.end(duplicate ? 'duplicate: already processed' : 'ok');
      });
    });
    this.server.on('connection', (s) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /** Registers a scenario's partner; returns the webhook URL for it. */
  register(key: string, partner: PartnerIdentity): string {
    this.partners.set(key, partner);
    this.seen.set(key, new Set());
    this.received.set(key, []);
    this.rejected.set(key, []);
    this.rejectedIds.set(key, []);
    return `${this.url}/hooks/${key}`;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

/** A URL on 127.0.0.1 where nothing listens: a receiver that is down. */
export async function downUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/down`;
}
