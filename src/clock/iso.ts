/**
 * ISO 8601 of a Unix ms time, exactly as `Date#toISOString` writes it: the one formatter of the
 * sandbox's instants (CONTRACT §2), virtual or wall. Every order view and webhook body renders
 * several: the date and the time of day are written from integers (days to a civil date by
 * Howard Hinnant's `civil_from_days`), a fraction of `toISOString`'s cost, with nothing kept
 * between calls (no state shared by the sandboxes of a process).
 * docs/decisions/004-iso-formatter.md; `iso.test.ts` checks it against `toISOString`.
 * @example ISO(0) // '1970-01-01T00:00:00.000Z'
 */
export function ISO(ms: number): string {
  if (!(ms >= 0 && ms < YEAR_10000 && Number.isInteger(ms))) return new Date(ms).toISOString();
  const days = Math.floor(ms / DAY_MS);
  // civil_from_days (http://howardhinnant.github.io/date_algorithms.html), for days ≥ 0.
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1_460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  let rest = ms - days * DAY_MS;
  const milli = rest % 1000;
  rest = (rest - milli) / 1000;
  const sec = rest % 60;
  rest = (rest - sec) / 60;
  const min = rest % 60;
  const hour = (rest - min) / 60;
  return `${year}-${PAD2[month]}-${PAD2[day]}T${PAD2[hour]}:${PAD2[min]}:${PAD2[sec]}.${PAD3[milli]}Z`;
}

const DAY_MS = 86_400_000;
/** 10000-01-01T00:00:00Z: from there on toISOString writes a six-digit, signed year. */
const YEAR_10000 = 253_402_300_800_000;
const PAD2 = Array.from({ length: 100 }, (_, i) => String(i).padStart(2, '0'));
const PAD3 = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0'));
