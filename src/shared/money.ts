/** Multiplies by 10^places through the decimal string, so 1.005 stays 100.5 (no binary drift). */
function shift(value: number, places: number): number {
  const [mantissa, exponent = '0'] = String(value).split('e');
  return Number(`${mantissa}e${Number(exponent) + places}`);
}

/** Rounds to `decimals` places, half away from zero, without binary drift (1.005 -> 1.01). */
export function round(value: number, decimals: number): number {
  if (!Number.isFinite(value)) return value;
  const sign = value < 0 ? -1 : 1;
  return sign * shift(Math.round(shift(Math.abs(value), decimals)), -decimals);
}

/** Rounds down to `decimals` places (never pays out more than was computed). */
export function floor(value: number, decimals: number): number {
  if (!Number.isFinite(value)) return value;
  return shift(Math.floor(shift(value, decimals) + 1e-9), -decimals);
}

/** Rounds up to `decimals` places (never asks for less than is due). */
export function ceil(value: number, decimals: number): number {
  if (!Number.isFinite(value)) return value;
  return shift(Math.ceil(shift(value, decimals) - 1e-9), -decimals);
}

/** Sums amounts and rounds the result, so `total` equals the sum of its rounded parts. */
export function sum(values: readonly number[], decimals: number): number {
  return round(values.reduce((a, b) => a + b, 0), decimals);
}
