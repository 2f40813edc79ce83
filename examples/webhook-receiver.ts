/**
 * A webhook receiver that verifies every delivery (spec §6.4) before trusting it.
 * Run: PORT=8080 CLIENT_ID=... ENCRYPTION_KEY=enc_test_... npx tsx examples/webhook-receiver.ts
 * then point your partner's webhook_url at http://127.0.0.1:8080/webhooks.
 */
import { createServer } from 'node:http';
import { verifyWebhook, WebhookVerificationError } from '../src';

const clientId = process.env.CLIENT_ID ?? '';
const encryptionKey = process.env.ENCRYPTION_KEY ?? '';
const processed = new Set<string>(); // spec §6.5: data.reference + event is the idempotency key

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const raw = Buffer.concat(chunks); // the raw bytes, before any JSON parsing
    try {
      const { event, data } = verifyWebhook(raw, req.headers, { clientId, encryptionKey, path: req.url ?? '/' });
      const key = `${data.reference}|${event}`;
      if (!processed.has(key)) {
        processed.add(key);
        console.log(`${event} ${data.reference} -> ${data.status}`);
      }
      res.writeHead(200).end('ok'); // answer quickly; do the work asynchronously
    } catch (error) {
      const reason = error instanceof WebhookVerificationError ? error.reason : 'error';
      res.writeHead(401).end(reason);
    }
  });
});
server.listen(Number(process.env.PORT ?? 8080), '127.0.0.1', () => {
  const address = server.address();
  console.log(`listening on ${typeof address === 'object' && address ? address.port : ''}`);
});
