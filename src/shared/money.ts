/** Rounds to `decimals` places, half away from zero, without binary drift (1.005 -> 1.01). */
export function round(value: number, decimals: number): number {
  if (!Number.isFinite(value)) return value;
  const sign = value < 0 ? -1 : 1;
  const shifted = Number(`${Math.abs(value)}e${decimals}`);
  return sign * Number(`${Math.round(shifted)}e-${decimals}`);
}

/** Rounds down to `decimals` places (never pays out more than was computed). */
export function floor(value: number, decimals: number): number {
  const shifted = Number(`${value}e${decimals}`);
  return Number(`${Math.floor(shifted + 1e-9)}e-${decimals}`);
}

/** Rounds up to `decimals` places (never asks for less than is due). */
export function ceil(value: number, decimals: number): number {
  const shifted = Number(`${value}e${decimals}`);
  return Number(`${Math.ceil(shifted - 1e-9)}e-${decimals}`);
}

/** Sums amounts and rounds the result, so `total` equals the sum of its rounded parts. */
export function sum(values: readonly number[], decimals: number): number {
  return round(values.reduce((a, b) => a + b, 0), decimals);
}
