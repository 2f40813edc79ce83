/** The median of a list of measurements (the microbenches report medians of alternating rounds). */
export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

/** A ratio as a percentage with one decimal: 0.734 → `73.4%`. */
export const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;
