/** CONTRACT §9: how deep a request body may nest (objects and arrays, the body itself is level 1). */
export const MAX_JSON_DEPTH = 64;

/**
 * The top-level field under which `value` nests deeper than `max` levels (`'body'` when the
 * body itself is an array too deep), or undefined when it is within the limit. Iterative, so a
 * body nested 100,000 levels deep costs a loop, not the stack.
 * @example tooDeepField({ metadata: { a: { a: 1 } } }, 2) // 'metadata'
 */
export function tooDeepField(value: unknown, max = MAX_JSON_DEPTH): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const stack: Array<[unknown, number, string]> = [];
  if (Array.isArray(value)) stack.push([value, 1, 'body']);
  else for (const [key, child] of Object.entries(value)) stack.push([child, 2, key]);
  while (stack.length > 0) {
    const [node, depth, field] = stack.pop()!;
    if (typeof node !== 'object' || node === null) continue;
    if (depth > max) return field;
    const children = Array.isArray(node) ? node : Object.values(node);
    for (const child of children) if (typeof child === 'object' && child !== null) stack.push([child, depth + 1, field]);
  }
  return undefined;
}
