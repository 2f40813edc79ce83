import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyWebhook } from '../../src';

/**
 * A partner's webhook receiver on this machine, for containers to deliver to (through
 * host.docker.internal / host.containers.internal): it verifies each delivery (spec §6.4) with
 * the keys of the partners it is given, answers 401 to what does not verify, and acknowledges a
 * duplicate without processing it again (spec §6.5), as the scenario library expects.
 */
export interface HostReceiver {
  port: number;
  /** Verified deliveries, first attempt of each (event, reference) only. */
  processed: Array<{ event: string; reference: string; status: string }>;
  trust(clientId: string, encryptionKeys: string[]): void;
  close(): Promise<void>;
}

export async function startHostReceiver(address: string): Promise<HostReceiver> {
  const keys = new Map<string, string[]>();
  const processed: HostReceiver['processed'] = [];
  const seen = new Set<string>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      for (const [clientId, encryptionKeys] of keys) {
        for (const encryptionKey of encryptionKeys) {
          try {
            const { event, data } = verifyWebhook(raw, req.headers, { clientId, encryptionKey, path: req.url ?? '/' });
            const reference = String((data as { reference?: unknown }).reference);
            if (!seen.has(`${reference}|${event}`)) {
              seen.add(`${reference}|${event}`);
              processed.push({ event, reference, status: String((data as { status?: unknown }).status) });
            }
            res.writeHead(200).end('ok');
            return;
          } catch {
            // not this key: try the next
          }
        }
      }
      res.writeHead(401).end('signature does not verify');
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, address, resolve);
  });
  return {
    port: (server.address() as AddressInfo).port,
    processed,
    trust: (clientId, encryptionKeys) => keys.set(clientId, encryptionKeys),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
