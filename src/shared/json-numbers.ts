/** The path of the first number in `value` that JSON cannot carry (YAML reads 1e400 as Infinity, .nan as NaN). */
export function nonFiniteNumberAt(value: unknown): string | undefined {
  const stack: Array<[unknown, string]> = [[value, '']];
  while (stack.length > 0) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'number' && !Number.isFinite(v)) return path || '(root)';
    if (v !== null && typeof v === 'object') {
      const entries = Array.isArray(v) ? v.map((x, i) => [String(i), x] as const) : Object.entries(v);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, x] = entries[i]!;
        stack.push([x, path ? `${path}.${key}` : key]);
      }
    }
  }
  return undefined;
}
