const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const PART = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/g;
const WHOLE = /^(?:\d+(?:\.\d+)?(?:ms|s|m|h|d))+$/;

/**
 * Parses a duration such as `90s`, `5m`, `2h`, `1d` or `1h30m` into ms; undefined if malformed.
 * @example parseDuration('1h30m') // 5_400_000
 */
export function parseDuration(text: string): number | undefined {
  const trimmed = text.trim();
  if (!WHOLE.test(trimmed)) return undefined;
  let total = 0;
  for (const [, value, unit] of trimmed.matchAll(PART)) total += Number(value) * UNIT_MS[unit!]!;
  return Math.round(total);
}

/**
 * The durations the document allows: whole units in the order d, h, m, s, ms, each bounded so the
 * sum stays under 10 years (2999d 9999h 99999m 999999s 999999999ms at most). The server reads
 * more (any order, repeats, decimals such as 1.5h, up to 3650d).
 */
const D = '(?:[12][0-9]{3}|[0-9]{1,3})d';
const H = '[0-9]{1,4}h';
const M = '[0-9]{1,5}m';
const S = '[0-9]{1,6}s';
const MS = '[0-9]{1,9}ms';
export const DURATION_PATTERN = `^(?:${D}(?:${H})?(?:${M})?(?:${S})?(?:${MS})?|${H}(?:${M})?(?:${S})?(?:${MS})?|${M}(?:${S})?(?:${MS})?|${S}(?:${MS})?|${MS})$`;
