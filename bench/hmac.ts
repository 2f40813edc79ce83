/**
 * HMAC microbench (docs/decisions/002-hmac.md): node's `createHmac` against HMAC-SHA256 written
 * as two one-shot `crypto.hash` calls over pads kept per key (what src/auth/signature.ts did
 * before issue 17 part 5; the candidate is kept here, not in src/, so the bench can be rerun).
 * A loop says little about the request path (decision 002: 0.5 µs here was 6–12 points of
 * throughput there); measure a change to it with bench/ab.ts.
 *
 *   npx tsx bench/hmac.ts [--signatures 1000000] [--rounds 9]
 *
 * Each round signs `--signatures` canonical strings (spec §5.2) with each implementation, in
 * alternating order (the machine is shared: medians of rounds, not means), for the two strings
 * a sandbox verifies most: a signed GET /v1/networks and a signed offramp POST /v1/orders.
 * The result is the time per signature and what the difference is of a signed request's cost,
 * taken as the sandbox's CPU time per request on that route: 1 / its throughput in
 * bench/results/latest.md (15,094 and 5,273 req/s: 66 and 190 µs), or `--get-us`/`--post-us`.
 */
import { createHmac, hash } from 'node:crypto';
import { parseArgs } from 'node:util';
import { canonicalString } from '../src/auth';
import { createSandbox } from '../src/sandbox/sandbox';
import { median } from './stats';

const { values: flags } = parseArgs({
  options: {
    signatures: { type: 'string', default: '1000000' },
    rounds: { type: 'string', default: '9' },
    // the sandbox's CPU per request (1 / req/s in bench/results/latest.md)
    'get-us': { type: 'string', default: '66' },
    'post-us': { type: 'string', default: '190' },
  },
});
const SIGNATURES = Number(flags.signatures);
const ROUNDS = Number(flags.rounds);

type Hmac = (key: string, message: string) => Buffer;

const viaCreateHmac: Hmac = (key, message) => createHmac('sha256', key).update(message).digest();

/** The candidate: RFC 2104 over pads computed once per key (ASCII keys of at most 64 bytes). */
const viaPads: Hmac = (() => {
  const BLOCK = 64;
  const padsByKey = new Map<string, { inner: string; outer: Buffer } | null>();
  const padsOf = (key: string) => {
    if (key.length > BLOCK || !/^[\x00-\x7f]*$/.test(key)) return null;
    let inner = '';
    const outer = Buffer.alloc(BLOCK + 32);
    for (let i = 0; i < BLOCK; i++) {
      const k = i < key.length ? key.charCodeAt(i) : 0;
      inner += String.fromCharCode(k ^ 0x36);
      outer[i] = k ^ 0x5c;
    }
    return { inner, outer };
  };
  return (key, message) => {
    let pads = padsByKey.get(key);
    if (pads === undefined) padsByKey.set(key, (pads = padsOf(key)));
    if (pads === null) return createHmac('sha256', key).update(message).digest();
    const inner = hash('sha256', pads.inner + message, 'buffer');
    inner.copy(pads.outer, BLOCK);
    return hash('sha256', pads.outer, 'buffer');
  };
})();

const demo = createSandbox({ logLevel: 'silent', clockMode: 'manual' });
const partner = demo.demoPartner;
const key = partner.keys.test.encryption_key;
const accountName = demo.reference.lookupAccount('058', '0123456789').account_name;
demo.close();
const offramp = JSON.stringify({
  from: { currency: 'USDT', network: 'base-sepolia', amount: 100 },
  to: { currency: 'NGN' },
  recipient: { institution_code: '058', account_number: '0123456789', account_name: accountName },
  customer: { reference: 'bench', name: 'Ada Obi', email: 'ada@example.com' },
});
const messages = {
  'GET /v1/networks': {
    text: canonicalString({ clientId: partner.client_id, timestamp: '1790000000000', method: 'GET', path: '/v1/networks', rawBody: '' }),
    requestUs: Number(flags['get-us']),
  },
  'POST /v1/orders (offramp)': {
    text: canonicalString({
      clientId: partner.client_id,
      timestamp: '1790000000000',
      method: 'POST',
      path: '/v1/orders',
      rawBody: offramp,
    }),
    requestUs: Number(flags['post-us']),
  },
};

const variants: Record<'createHmac' | 'pads', Hmac> = { createHmac: viaCreateHmac, pads: viaPads };
for (const [name, { text: message }] of Object.entries(messages)) {
  if (!viaPads(key, message).equals(viaCreateHmac(key, message))) throw new Error(`the pads disagree with createHmac on ${name}`);
}

/** ns per signature over `n` signatures of `message` (each a distinct timestamp, as requests are). */
function time(hmac: Hmac, message: string, n: number): number {
  // the timestamp varies as it does between requests; the strings are made outside the timing
  const texts = Array.from({ length: 1000 }, (_, i) => message.replace('1790000000000', String(1790000000000 + i)));
  let sink = 0;
  const started = process.hrtime.bigint();
  for (let i = 0; i < n; i++) sink ^= hmac(key, texts[i % 1000]!)[0]!;
  const ns = Number(process.hrtime.bigint() - started) / n;
  if (sink === -1) console.log(sink);
  return ns;
}

console.log(
  `Node ${process.version}; ${ROUNDS} alternating rounds of ${SIGNATURES.toLocaleString('en')} signatures per implementation; key ${key.length} characters\n`,
);
for (const [name, { text: message, requestUs }] of Object.entries(messages)) {
  for (const v of Object.values(variants)) time(v, message, 100_000); // warm-up
  const ns: Record<keyof typeof variants, number[]> = { createHmac: [], pads: [] };
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 ? (['pads', 'createHmac'] as const) : (['createHmac', 'pads'] as const);
    for (const v of order) ns[v].push(time(variants[v], message, SIGNATURES));
  }
  const [a, b] = [median(ns.createHmac), median(ns.pads)];
  console.log(
    `${name} (${message.length} characters): createHmac ${a.toFixed(0)} ns, pads ${b.toFixed(0)} ns per signature (medians; rounds ${Math.min(...ns.createHmac).toFixed(0)}–${Math.max(...ns.createHmac).toFixed(0)} and ${Math.min(...ns.pads).toFixed(0)}–${Math.max(...ns.pads).toFixed(0)})`,
  );
  console.log(
    `  the pads save ${(a - b).toFixed(0)} ns a request: ${(((a - b) / (requestUs * 1000)) * 100).toFixed(1)}% of a signed request's ${requestUs} µs`,
  );
}
