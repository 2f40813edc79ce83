// Values made from the OpenAPI document's schemas (the Postman export's bodies and parameters,
// CONTRACT §19): a schema's own example when it has one, else one made from its type and bounds.

/** A media type's example: its own, the first of its named ones, else one from its schema. */
export function mediaExample(content: Record<string, unknown>, components: Record<string, unknown>): unknown {
  if (content.example !== undefined) return content.example;
  const named = firstExample(content.examples);
  return named !== undefined ? named : sampleOf(content.schema, components);
}

/** The value of the first of OpenAPI's named examples (`{name: {value}}`). */
export function firstExample(examples: unknown): unknown {
  const first = Object.values(asRecord(examples))[0];
  return first === undefined ? undefined : asRecord(first).value;
}

/**
 * A value valid for a JSON schema of the document: its example when it has one (schema `example`
 * or the first of `examples`), else one made from its type and bounds; an object gets its
 * required properties (all of them when none is required).
 */
export function sampleOf(schema: unknown, components: Record<string, unknown>, depth = 0): unknown {
  const s = asRecord(resolve(schema, components));
  if (s.example !== undefined) return s.example;
  if (Array.isArray(s.examples) && s.examples.length > 0) return s.examples[0];
  if (s.const !== undefined) return s.const;
  if (s.default !== undefined) return s.default;
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
  if (depth > 8) return null;
  for (const key of ['oneOf', 'anyOf'] as const) {
    const first = asArray(s[key]).find((branch) => asRecord(resolve(branch, components)).type !== 'null');
    if (first !== undefined) return sampleOf(first, components, depth + 1);
  }
  if (Array.isArray(s.allOf)) {
    return Object.assign({}, ...s.allOf.map((part) => asRecord(sampleOf(part, components, depth + 1))));
  }
  const types = Array.isArray(s.type) ? s.type : [s.type];
  const type = types.find((t) => t !== 'null') ?? (s.properties ? 'object' : undefined);
  switch (type) {
    case 'object': {
      const properties = asRecord(s.properties);
      const required = asArray(s.required).filter((k): k is string => typeof k === 'string');
      const keys = required.length > 0 ? required : Object.keys(properties);
      return Object.fromEntries(keys.map((k) => [k, sampleOf(properties[k], components, depth + 1)]));
    }
    case 'array':
      return s.maxItems === 0 ? [] : [sampleOf(s.items, components, depth + 1)];
    case 'integer':
    case 'number':
      return numberSample(s, type === 'integer');
    case 'boolean':
      return true;
    case 'null':
      return null;
    case 'string':
      return stringSample(s);
    default:
      return {};
  }
}

/** 1, or the nearest value the bounds allow (a multiple of `multipleOf` when there is one). */
function numberSample(s: Record<string, unknown>, integer: boolean): number {
  const num = (v: unknown) => (typeof v === 'number' ? v : undefined);
  let n = 1;
  const min = num(s.minimum);
  const above = num(s.exclusiveMinimum);
  const max = num(s.maximum);
  const below = num(s.exclusiveMaximum);
  if (min !== undefined && n < min) n = min;
  if (above !== undefined && n <= above) n = above + 1;
  if (max !== undefined && n > max) n = max;
  if (below !== undefined && n >= below) n = below - (integer ? 1 : 0.5);
  const step = num(s.multipleOf);
  if (step) n = Math.ceil(n / step) * step;
  return integer ? Math.ceil(n) : n;
}

const FORMAT_SAMPLES: Record<string, string> = {
  email: 'ada@example.com',
  'date-time': '2026-01-15T12:00:00.000Z',
  date: '2026-01-15',
  uri: 'https://example.com/webhooks',
  url: 'https://example.com/webhooks',
  uuid: '00000000-0000-4000-8000-000000000000',
  ipv4: '203.0.113.7',
};

function stringSample(s: Record<string, unknown>): string {
  const format = typeof s.format === 'string' ? FORMAT_SAMPLES[s.format] : undefined;
  if (format) return format;
  const min = typeof s.minLength === 'number' ? s.minLength : 0;
  const max = typeof s.maxLength === 'number' ? s.maxLength : Infinity;
  const text = 'string'.padEnd(min, 'x');
  return text.slice(0, Math.max(min, Math.min(text.length, max)));
}

/** What a `#/components/<kind>/<name>` reference points at (the value itself when it is none). */
export function resolve(value: unknown, components: Record<string, unknown>, seen = 0): unknown {
  const ref = asRecord(value).$ref;
  if (typeof ref !== 'string' || seen > 16) return value;
  const [, kind, name] = /^#\/components\/([^/]+)\/(.+)$/.exec(ref) ?? [];
  return kind === undefined || name === undefined ? value : resolve(asRecord(components[kind])[name], components, seen + 1);
}

export function asRecord(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

export function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}
