// A partner's service in another container (examples/compose/compose.yaml): Node's standard
// library only, as a service in any language would do it. On start it finds the sandbox by its
// service name, points the demo partner's webhooks at itself, creates an order, pays it in and
// advances the virtual clock; every webhook it receives is verified (spec §6.4) before it is
// processed, once per event and order (spec §6.5). GET /received lists what it processed.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';

const sandbox = process.env.SANDBOX_URL ?? 'http://sandbox:4010';
const webhookUrl = process.env.WEBHOOK_URL ?? 'http://partner:8080/webhooks';
const processed = [];
const seen = new Set();
let partner; // { client_id, keys: { test, live } }

async function control(method, path, body) {
  const res = await fetch(`${sandbox}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await res.json();
  if (!json.status) throw new Error(`${method} ${path}: ${res.status} ${json.message}`);
  return json.data;
}

function verified(raw, headers, path) {
  const timestamp = headers['svc-timestamp'];
  const signature = headers['svc-signature'] ?? '';
  if (!partner || !/^\d+$/.test(timestamp ?? '') || Math.abs(Date.now() - Number(timestamp)) > 300_000) return undefined;
  for (const env of ['test', 'live']) {
    const canonical = `${partner.client_id}|${timestamp}|POST|${path}|${raw}`;
    const expected = Buffer.from(`sha256=${createHmac('sha256', partner.keys[env].encryption_key).update(canonical).digest('hex')}`);
    const given = Buffer.from(signature);
    if (given.length === expected.length && timingSafeEqual(given, expected)) return JSON.parse(raw);
  }
  return undefined;
}

createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/received') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(processed));
    return;
  }
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const delivery = verified(Buffer.concat(chunks).toString('utf8'), req.headers, req.url);
    if (!delivery) return void res.writeHead(401).end('bad signature');
    const key = `${delivery.data.reference}|${delivery.event}`;
    if (!seen.has(key)) {
      seen.add(key);
      processed.push({ event: delivery.event, reference: delivery.data.reference, status: delivery.data.status });
      console.log(`verified ${delivery.event} ${delivery.data.reference} -> ${delivery.data.status}`);
    }
    res.writeHead(200).end('ok');
  });
}).listen(Number(process.env.PORT ?? 8080), '0.0.0.0', () => console.log(`partner listening on ${process.env.PORT ?? 8080}`));

// The sandbox may still be starting: ask its /health until it answers.
for (let i = 0; ; i++) {
  try {
    if ((await fetch(`${sandbox}/health`)).ok) break;
  } catch {
    if (i > 600) throw new Error(`no sandbox at ${sandbox}`);
  }
  await new Promise((resolve) => setTimeout(resolve, 100));
}
const [demo] = (await control('GET', '/sandbox/partners')).filter((p) => p.client_id.startsWith('ptr_demo_'));
partner = await control('GET', `/sandbox/partners/${demo.client_id}/keys`);
await control('PATCH', `/sandbox/partners/${partner.client_id}`, { webhook_url: webhookUrl });
const order = await control('POST', '/sandbox/orders', {
  client_id: partner.client_id,
  from: { currency: 'NGN', amount: 50_000 },
  to: { currency: 'USDT', network: 'base-sepolia' },
});
console.log(`created ${order.reference}: ${order.status}`);
await control('POST', `/sandbox/orders/${order.reference}/payin`, {});
await control('POST', '/sandbox/clock/advance', { duration: '1h' });
console.log('paid in and advanced the virtual clock 1h: the order runs to its end, its webhooks come here');
