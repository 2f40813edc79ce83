/**
 * Packed delivery bodies (docs/decisions/007-packed-delivery-bodies.md): heap held by finished
 * webhook deliveries' bodies kept as the JSON text sent, against `PackedBody`
 * (src/webhooks/packed-body.ts), and the time to pack and unpack one.
 *
 *   node --expose-gc --import tsx bench/packed-body.ts [--bodies 60000]
 *
 * Bodies are real webhook bodies, `{event, data: <order summary>}`, of orders created in an
 * in-process sandbox (a third each of onramp, offramp, swap), taken when created and when
 * final. Heap is read after two forced GCs, before and after the bodies are made; each body is
 * its own string (as each delivery's is in a run).
 */
import { parseArgs } from 'node:util';
import { createSandbox } from '../src/sandbox/sandbox';
import { PackedBody } from '../src/webhooks/packed-body';

const { values: flags } = parseArgs({ options: { bodies: { type: 'string', default: '60000' } } });
const BODIES = Number(flags.bodies);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc --import tsx bench/packed-body.ts');

const sandbox = createSandbox({ logLevel: 'silent', clockMode: 'manual', maxOrders: BODIES });
const caller = { partner: sandbox.demoPartner, env: 'test' as const };
const accountName = sandbox.reference.lookupAccount('058', '0123456789').account_name;
const texts = [
  (i: number) =>
    `{"from":{"currency":"NGN","amount":${50_000 + i}},"to":{"currency":"USDT","network":"base-sepolia"},"recipient":{"address":"0x${'5'.repeat(40)}"},"customer":{"reference":"cus-${i}","name":"Ada Obi","email":"ada@example.com"}}`,
  (i: number) =>
    `{"from":{"currency":"USDT","network":"base-sepolia","amount":${100 + (i % 900)}},"to":{"currency":"NGN"},"recipient":{"institution_code":"058","account_number":"0123456789","account_name":"${accountName}"},"customer":{"reference":"cus-${i}","name":"Ada Obi","email":"ada@example.com"}}`,
  (i: number) =>
    `{"from":{"currency":"USDC","network":"base-sepolia","amount":${100 + (i % 900)}},"to":{"currency":"ETH","network":"base-sepolia"},"recipient":{"address":"0x${'6'.repeat(40)}"},"customer":{"reference":"cus-${i}","name":"Ada Obi","email":"ada@example.com"}}`,
];
const references: string[] = [];
for (let i = 0; i < BODIES / 2; i++) references.push(sandbox.orders.create(caller, JSON.parse(texts[i % 3]!(i))).reference);
const bodiesAt = (event: string) =>
  references.map((ref) => JSON.stringify({ event, data: sandbox.orders.summary(sandbox.orders.store.orders.get(ref)!) }));
const created = bodiesAt('order.created');
for (const ref of references) sandbox.orders.simulatePayin(ref, {});
await sandbox.advance(2 * 3_600_000);
const final = bodiesAt('order.settled');
/** A fresh flat copy of a string: each delivery's body is its own. */
const copy = (b: string) => Buffer.from(b, 'utf8').toString('utf8');
const source = [...created, ...final].map(copy);
sandbox.close();

function heapAfterGc(): number {
  gc!();
  gc!();
  return process.memoryUsage().heapUsed;
}

function bytesPer(make: (body: string) => unknown): number {
  const before = heapAfterGc();
  const kept = source.map(make);
  const after = heapAfterGc();
  if (kept.length !== source.length) throw new Error('lost bodies');
  return (after - before) / source.length;
}

const textLength = source.reduce((n, b) => n + b.length, 0) / source.length;
const asText = bytesPer((b) => ({ body: copy(b) }));
const packed = bytesPer((b) => ({ body: PackedBody.pack(b) }));
// before PackedBody: the deflated string in `body` itself, beside a `packed` flag
const flagged = bytesPer((b) => ({ body: (PackedBody.pack(b) as unknown as { deflated: string }).deflated, packed: true }));
const packedSize = source.reduce((n, b) => n + PackedBody.pack(b).size, 0) / source.length;
for (const b of source.slice(0, 1000)) if (PackedBody.pack(b).unpack() !== b) throw new Error('round trip failed');

const sample = source.slice(0, 20_000);
let started = performance.now();
const packs = sample.map((b) => PackedBody.pack(b));
const packUs = ((performance.now() - started) * 1000) / sample.length;
started = performance.now();
for (const p of packs) p.unpack();
const unpackUs = ((performance.now() - started) * 1000) / sample.length;

console.log(
  `Node ${process.version}; ${source.length.toLocaleString('en')} webhook bodies, ${textLength.toFixed(0)} characters on average, ${packedSize.toFixed(0)} bytes packed`,
);
console.log(
  `heap per body (in an object, as a delivery holds it): as text ${asText.toFixed(0)} B, packed ${packed.toFixed(0)} B: ${(asText - packed).toFixed(0)} B saved (${((1 - packed / asText) * 100).toFixed(0)}%)`,
);
console.log(
  `the same deflated string in \`body\` with a \`packed\` flag (before PackedBody): ${flagged.toFixed(0)} B; the class costs ${(packed - flagged).toFixed(0)} B a body`,
);
console.log(
  `pack ${packUs.toFixed(1)} µs, unpack ${unpackUs.toFixed(1)} µs per body (once when a delivery finishes; each read of it from the delivery log or a snapshot)`,
);
