/**
 * Account-name microbench (docs/decisions/003-account-name-cache.md): `lookupAccount` answering
 * from its name cache against drawing the name with faker (a re-seed of faker's Mersenne Twister,
 * then four draws), as every offramp create to a bank account does.
 *
 *   npx tsx bench/account-names.ts [--lookups 200000] [--rounds 9]
 *
 * Hit: the same account looked up again (a partner testing with its few accounts). Miss: a
 * different account number each time (the cache keeps 10,000 names, first in, first out, so a
 * run over more accounts than that always misses). Alternating rounds, medians of rounds.
 */
import { parseArgs } from 'node:util';
import { VirtualClock } from '../src/clock';
import { DEFAULT_FIXTURES_DIR, createReferenceStore, loadFixtures } from '../src/reference';
import { median } from './stats';

const { values: flags } = parseArgs({
  options: {
    lookups: { type: 'string', default: '200000' },
    rounds: { type: 'string', default: '9' },
    // a signed offramp POST /v1/orders: 5,273 req/s in bench/results/latest.md
    'create-us': { type: 'string', default: '190' },
  },
});
const LOOKUPS = Number(flags.lookups);
const ROUNDS = Number(flags.rounds);
const CREATE_US = Number(flags['create-us']);

const store = createReferenceStore(loadFixtures(DEFAULT_FIXTURES_DIR), { seed: 42, clock: new VirtualClock({ start: 0, mode: 'manual' }) });
let next = 1_000_000_000;
const kinds = {
  hit: () => store.lookupAccount('058', '0123456789'),
  miss: () => store.lookupAccount('058', String(next++)),
};

const time = (lookup: () => unknown, n: number) => {
  const started = process.hrtime.bigint();
  for (let i = 0; i < n; i++) lookup();
  return Number(process.hrtime.bigint() - started) / n;
};

for (const lookup of Object.values(kinds)) time(lookup, 20_000); // warm-up
const ns: Record<keyof typeof kinds, number[]> = { hit: [], miss: [] };
for (let r = 0; r < ROUNDS; r++) {
  const order = r % 2 ? (['miss', 'hit'] as const) : (['hit', 'miss'] as const);
  for (const k of order) ns[k].push(time(kinds[k], LOOKUPS));
}
const [hit, miss] = [median(ns.hit), median(ns.miss)];
console.log(`Node ${process.version}; ${ROUNDS} alternating rounds of ${LOOKUPS.toLocaleString('en')} lookups`);
console.log(
  `lookupAccount: cached ${hit.toFixed(0)} ns, drawn by faker ${miss.toFixed(0)} ns (medians; rounds ${Math.min(...ns.hit).toFixed(0)}–${Math.max(...ns.hit).toFixed(0)} and ${Math.min(...ns.miss).toFixed(0)}–${Math.max(...ns.miss).toFixed(0)})`,
);
console.log(
  `the cache saves ${((miss - hit) / 1000).toFixed(1)} µs a lookup: ${(((miss - hit) / (CREATE_US * 1000)) * 100).toFixed(1)}% of a signed offramp create's ${CREATE_US} µs`,
);
