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

export const seconds = (n: number) => n * 1000;
export const minutes = (n: number) => n * 60_000;
export const hours = (n: number) => n * 3_600_000;
