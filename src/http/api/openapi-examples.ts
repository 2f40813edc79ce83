/**
 * Post-processing of the generated OpenAPI document (CONTRACT §19), on plain JSON: patterns
 * written for every regex dialect, and an `example` on every named schema and parameter. The
 * examples written by hand (`.meta({ example })` beside the zod checks) are kept; the others are
 * put together from their parts' examples, so they stay in step with the schemas.
 * test/http/openapi-quality.test.ts validates every example against its schema.
 */

type Json = Record<string, unknown>;
const NONE = Symbol('no example');
type Example = unknown | typeof NONE;

/**
 * `\d` and `\w` as the ASCII classes they are in a JavaScript regex without the `u` flag: some
 * validators (Python's, .NET's) read them as Unicode classes, which would let `٣` through.
 * @example portablePattern('^\\d{2}$') // '^[0-9]{2}$'
 */
function portablePattern(source: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === '\\' && i + 1 < source.length) {
      const next = source[++i]!;
      if (next === 'd') out += inClass ? '0-9' : '[0-9]';
      else if (next === 'w') out += inClass ? 'A-Za-z0-9_' : '[A-Za-z0-9_]';
      else out += c + next;
      continue;
    }
    if (c === '[' && !inClass) inClass = true;
    else if (c === ']' && inClass) inClass = false;
    out += c;
  }
  return out;
}

/** Rewrites every `pattern` in the document with `portablePattern`. */
export function portablePatterns(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) portablePatterns(item);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  const obj = node as Json;
  for (const [key, value] of Object.entries(obj)) {
    if (key === 'pattern' && typeof value === 'string') obj[key] = portablePattern(value);
    else portablePatterns(value);
  }
}

/** Fixed values for string formats, so that examples are stable from one start to the next. */
const FORMAT_EXAMPLES: Record<string, string> = {
  'date-time': '2026-01-15T12:00:00.000Z',
  email: 'ada@example.com',
  uri: 'https://partner.example',
};

/**
 * Realistic values for the spec's identifiers and codes, by field or parameter name, for a string
 * with no example of its own: a generated client's docs and a fuzzer's seeds show `ptr_acme`,
 * not the word `example` (issue 6). Each fits any schema of that name in the document (checked
 * by test/http/openapi-quality.test.ts).
 */
const NAMED_EXAMPLES: Record<string, string> = {
  client_id: 'ptr_acme',
  demo_client_id: 'ptr_acme',
  reference: 'ORD4F7K2M9Q8X1B3',
  order: 'ORD4F7K2M9Q8X1B3',
  merchant_reference: 'inv-2026-0001',
  customer_reference: 'cus_1001',
  quote_id: 'qt_8fK2mQ9xL4bN7cR1vT3w',
  network: 'base-sepolia',
  currency: 'NGN',
  asset: 'USDT',
  institution_code: '058',
  account_number: '0123456789',
  account_name: 'ADA OBI',
  address: '0x52908400098527886E0F7030069857D2E4169EE7',
  tx_hash: `0x${'ab'.repeat(32)}`,
  tx_reference: 'TRF8803344556677881',
};

/**
 * Adds an `example` to every component schema and every parameter that has none, made from the
 * examples of its parts (properties, items, the first variant of a union). A schema whose value
 * cannot be made up (a string with a pattern and no example) is left without one: the quality
 * test names it.
 */
export function addExamples(doc: Json): void {
  const components = (doc.components ?? {}) as Json;
  const schemas = (components.schemas ?? {}) as Record<string, Json>;
  const busy = new Set<string>();

  const componentExample = (name: string): Example => {
    const schema = schemas[name];
    if (!schema) return NONE;
    if ('example' in schema) return schema.example;
    if (busy.has(name)) return NONE; // a recursive schema: its example stops here
    busy.add(name);
    const made = exampleOf(schema);
    busy.delete(name);
    if (made !== NONE) schema.example = made;
    return made;
  };

  const exampleOf = (schema: unknown, name?: string): Example => {
    if (schema === true || schema === undefined) return null;
    if (schema === false || schema === null || typeof schema !== 'object') return NONE;
    const s = schema as Json;
    if ('example' in s) return s.example;
    if (typeof s.$ref === 'string') return componentExample(s.$ref.split('/').pop()!);
    if ('const' in s) return s.const;
    if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
    if (s.default !== undefined) return s.default;
    if (Array.isArray(s.allOf)) return merged(s.allOf.map((part) => exampleOf(part)));
    const variants = (s.oneOf ?? s.anyOf) as unknown[] | undefined;
    if (Array.isArray(variants) && !s.properties) {
      for (const variant of variants) {
        const made = exampleOf(variant, name);
        if (made !== NONE) return made;
      }
      return NONE;
    }
    const types = Array.isArray(s.type) ? (s.type as string[]) : typeof s.type === 'string' ? [s.type] : [];
    const type = types.find((t) => t !== 'null') ?? types[0] ?? (s.properties ? 'object' : undefined);
    switch (type) {
      case 'object':
        return objectExample(s);
      case 'array': {
        const item = exampleOf(s.items);
        const min = typeof s.minItems === 'number' ? s.minItems : 0;
        if (item === NONE) return min === 0 ? [] : NONE;
        return Array.from({ length: Math.max(1, min) }, () => item);
      }
      case 'string': {
        if (typeof s.format === 'string' && FORMAT_EXAMPLES[s.format]) return FORMAT_EXAMPLES[s.format];
        const min = typeof s.minLength === 'number' ? s.minLength : 0;
        const max = typeof s.maxLength === 'number' ? s.maxLength : Infinity;
        const named = name === undefined ? undefined : NAMED_EXAMPLES[name];
        if (
          named !== undefined &&
          named.length >= min &&
          named.length <= max &&
          (s.pattern === undefined || new RegExp(s.pattern as string, 'u').test(named))
        )
          return named;
        if (s.pattern !== undefined) return NONE;
        return 'example'.padEnd(min, 'x').slice(0, max);
      }
      case 'integer':
      case 'number':
        return numberExample(s, type === 'integer');
      case 'boolean':
        return true;
      case 'null':
        return null;
      default:
        return null;
    }
  };

  const objectExample = (s: Json): Example => {
    const required = new Set((s.required ?? []) as string[]);
    const left = excluded(s.not);
    const out: Json = {};
    for (const [key, prop] of Object.entries((s.properties ?? {}) as Json)) {
      if (left.has(key) || isNever(prop)) continue;
      const made = exampleOf(prop, key);
      if (made === NONE) {
        if (required.has(key)) return NONE;
        continue;
      }
      out[key] = made;
    }
    return out;
  };

  for (const name of Object.keys(schemas)) componentExample(name);
  forEachParameter(doc, (param) => {
    if ('example' in param || 'examples' in param) return;
    const made = exampleOf(param.schema, typeof param.name === 'string' ? param.name : undefined);
    if (made !== NONE) param.example = made;
  });
}

/** Every parameter object of the document's operations and webhooks. */
function forEachParameter(doc: Json, visit: (param: Json) => void): void {
  for (const group of [doc.paths, doc.webhooks] as unknown[]) {
    for (const item of Object.values((group ?? {}) as Record<string, Json>)) {
      for (const op of Object.values(item)) {
        for (const param of ((op as Json | undefined)?.parameters ?? []) as Json[]) visit(param);
      }
    }
  }
}

/** The properties an object's `not` rules out: `not: {required: [a, b]}` (not both: leave b out) or `not: {anyOf: [{required: [a]}, …]}`. */
function excluded(not: unknown): Set<string> {
  const out = new Set<string>();
  if (not === null || typeof not !== 'object') return out;
  const n = not as Json;
  if (Array.isArray(n.required) && n.required.length > 0) out.add(n.required.at(-1) as string);
  for (const branch of (n.anyOf ?? []) as Json[]) for (const key of (branch.required ?? []) as string[]) out.add(key);
  return out;
}

/** `{ not: {} }` (or `false`): a property no value is allowed for. */
function isNever(schema: unknown): boolean {
  if (schema === false) return true;
  const not = (schema as Json | null)?.not;
  return typeof not === 'object' && not !== null && Object.keys(not).length === 0;
}

function merged(parts: Example[]): Example {
  if (parts.some((p) => p === NONE)) return NONE;
  return Object.assign({}, ...parts.filter((p) => p !== null && typeof p === 'object'));
}

function numberExample(s: Json, integer: boolean): number {
  const min =
    typeof s.minimum === 'number'
      ? s.minimum
      : typeof s.exclusiveMinimum === 'number'
        ? s.exclusiveMinimum + (integer ? 1 : 0.5)
        : undefined;
  const max =
    typeof s.maximum === 'number'
      ? s.maximum
      : typeof s.exclusiveMaximum === 'number'
        ? s.exclusiveMaximum - (integer ? 1 : 0.5)
        : undefined;
  let value = 1;
  if (min !== undefined && value < min) value = min;
  if (max !== undefined && value > max) value = max;
  return integer ? Math.ceil(value) : value;
}
