/**
 * Quote and order with signed requests, as a partner backend would.
 * Run against `npm start`: npx tsx examples/sign-and-call.ts
 * Env: BASE_URL, CLIENT_ID, SECRET_KEY, ENCRYPTION_KEY (default: the demo partner of seed 1).
 */
import { signRequest } from '../src';
import { createSandbox } from '../src/sandbox/sandbox';

const demo = createSandbox({ logLevel: 'silent' }).demoPartner; // only to default the keys
const baseUrl = process.env.BASE_URL ?? 'http://127.0.0.1:4010';
const creds = {
  clientId: process.env.CLIENT_ID ?? demo.client_id,
  secretKey: process.env.SECRET_KEY ?? demo.keys.test.secret_key,
  encryptionKey: process.env.ENCRYPTION_KEY ?? demo.keys.test.encryption_key,
};

async function call(method: string, path: string, payload?: unknown) {
  const body = payload === undefined ? undefined : JSON.stringify(payload); // sign these exact bytes
  const headers = signRequest({ method, path, body, ...creds });
  const res = await fetch(baseUrl + path, { method, headers, body });
  const json = (await res.json()) as { data?: any };
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json.data;
}

const quote = await call('POST', '/v1/orders/quote', {
  from: { currency: 'NGN', amount: 50_000 },
  to: { currency: 'USDT', network: 'base-sepolia' },
});
const order = await call('POST', '/v1/orders', {
  quote_id: quote.quote_id,
  recipient: { address: '0x52908400098527886E0F7030069857D2E4169EE7' },
  customer: { reference: 'cus_1', name: 'Ada Obi', email: 'ada@example.com' },
});
console.log(
  `order ${order.reference}: ${order.status}; pay ${order.payin.amount} ${order.payin.currency} to ${order.payin.account_number} before ${order.payin.expires_at}`,
);
const read = await call('GET', `/v1/orders/${order.reference}?include=timeline`);
console.log(`read back: ${read.status}, ${read.timeline.length} timeline entries`);
