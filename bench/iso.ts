/**
 * ISO formatter microbench (docs/decisions/004-iso-formatter.md): `ISO` (src/clock/iso.ts:
 * the date and the time of day written from integers, nothing kept between calls) against
 * `new Date(ms).toISOString()`.
 *
 *   npx tsx bench/iso.ts [--calls 2000000] [--rounds 9]
 *
 * Three patterns of instants, as the sandbox renders them: the order view's few instants of one
 * order (created, updated, a few timeline entries ms apart on one day: what a create and an
 * order poll render), a list page's instants (orders created over a day, each rendered once), and
 * the same instant again (a clock view). Alternating rounds, medians of rounds.
 */
import { parseArgs } from 'node:util';
import { ISO } from '../src/clock';
import { median } from './stats';

const { values: flags } = parseArgs({
  options: {
    calls: { type: 'string', default: '2000000' },
    rounds: { type: 'string', default: '9' },
  },
});
const CALLS = Number(flags.calls);
const ROUNDS = Number(flags.rounds);

const start = Date.UTC(2026, 0, 15, 12);
const patterns: Record<string, number[]> = {
  // one order: created, updated, and timeline entries seconds apart
  'an order view': [start, start + 61_000, start, start + 1_000, start + 30_000, start + 61_000],
  // a list page: 20 orders a few minutes apart, created and updated each
  'a list page': Array.from({ length: 20 }, (_, i) => [start + i * 311_000, start + i * 311_000 + 45_000]).flat(),
  'one instant again': [start],
};

const viaDate = (ms: number) => new Date(ms).toISOString();
for (const instants of Object.values(patterns))
  for (const ms of instants) if (ISO(ms) !== viaDate(ms)) throw new Error(`ISO(${ms}) differs`);

const time = (format: (ms: number) => string, instants: number[], n: number) => {
  let sink = 0;
  const started = process.hrtime.bigint();
  for (let i = 0; i < n; i++) sink += format(instants[i % instants.length]!).length;
  const ns = Number(process.hrtime.bigint() - started) / n;
  if (sink === -1) console.log(sink);
  return ns;
};

console.log(`Node ${process.version}; ${ROUNDS} alternating rounds of ${CALLS.toLocaleString('en')} calls per formatter`);
for (const [name, instants] of Object.entries(patterns)) {
  const variants = { ISO, toISOString: viaDate };
  for (const f of Object.values(variants)) time(f, instants, 200_000); // warm-up
  const ns: Record<keyof typeof variants, number[]> = { ISO: [], toISOString: [] };
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 ? (['toISOString', 'ISO'] as const) : (['ISO', 'toISOString'] as const);
    for (const v of order) ns[v].push(time(variants[v], instants, CALLS));
  }
  const [iso, date] = [median(ns.ISO), median(ns.toISOString)];
  console.log(
    `${name}: ISO ${iso.toFixed(0)} ns, toISOString ${date.toFixed(0)} ns per instant (medians); ${(date - iso).toFixed(0)} ns saved per instant`,
  );
}
