/**
 * ISO 8601 of a Unix ms time, exactly as `Date#toISOString` writes it: the one formatter of the
 * sandbox's instants (CONTRACT §2), virtual or wall. Every order view and webhook body renders
 * several: the date part is kept per day and the time of day written from integers (a quarter of
 * the cost), and the last answer is remembered (renders ask for the same instant often).
 * docs/decisions/004-iso-formatter.md; `iso.test.ts` checks it against `toISOString`.
 * @example ISO(0) // '1970-01-01T00:00:00.000Z'
 */
export function ISO(ms: number): string {
  if (ms === lastMs) return lastIso;
  if (!(ms >= 0 && ms < YEAR_10000 && Number.isInteger(ms))) return new Date(ms).toISOString();
  const day = Math.floor(ms / DAY_MS);
  if (day !== prefixDay) {
    prefix = new Date(day * DAY_MS).toISOString().slice(0, 11); // YYYY-MM-DDT
    prefixDay = day;
  }
  let rest = ms - day * DAY_MS;
  const milli = rest % 1000;
  rest = (rest - milli) / 1000;
  const sec = rest % 60;
  rest = (rest - sec) / 60;
  const min = rest % 60;
  const hour = (rest - min) / 60;
  lastIso = `${prefix}${PAD2[hour]}:${PAD2[min]}:${PAD2[sec]}.${PAD3[milli]}Z`;
  lastMs = ms;
  return lastIso;
}

let lastMs = Number.NaN;
let lastIso = '';
let prefixDay = Number.NaN;
let prefix = '';
const DAY_MS = 86_400_000;
/** 10000-01-01T00:00:00Z: from there on toISOString writes a six-digit, signed year. */
const YEAR_10000 = 253_402_300_800_000;
const PAD2 = Array.from({ length: 100 }, (_, i) => String(i).padStart(2, '0'));
const PAD3 = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0'));
