/**
 * Summarises a `--cpu-prof` file as the bench's profile section does (bench/profile.ts): areas,
 * top functions by self time, our functions by inclusive time.
 * Usage: node --import tsx bench/read-profile.ts FILE.cpuprofile [top]
 */
import { readFileSync } from 'node:fs';
import { summarise } from './profile';

const [file, top = '25'] = process.argv.slice(2);
if (!file) throw new Error('usage: read-profile.ts FILE.cpuprofile [top]');
const s = summarise(JSON.parse(readFileSync(file, 'utf8')), Number(top));
process.stdout.write(
  `${s.samples} samples, ${s.ms} ms\nareas: ${s.areas
    .filter((a) => a.pct >= 0.5)
    .map((a) => `${a.area} ${a.pct}%`)
    .join(', ')}\n\nself:\n`,
);
for (const t of s.top.slice(0, Number(top))) process.stdout.write(`${String(t.pct).padStart(6)}  ${t.fn}  ${t.at || t.area}\n`);
process.stdout.write('\ninclusive (ours):\n');
for (const t of s.inclusive.slice(0, Number(top))) process.stdout.write(`${String(t.pct).padStart(6)}  ${t.fn}  ${t.at}\n`);
