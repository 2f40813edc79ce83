import type * as z from 'zod';

/**
 * A zod schema compiled into a check made in place (decision 029): for a value parsed from JSON,
 * `true` only when the schema accepts it and its output would be the value itself (the same
 * keys, nothing stripped, defaulted or transformed; zod would only list the keys in its order). A part the compiler does
 * not know is handed to its own schema and replaced by the output (`holder[key] = data`).
 *
 * It is only a fast path, never the judge: `false` says nothing but "ask zod", which the caller
 * does for the whole item (and so gets zod's own error). What it accepts, zod accepts with the
 * same output but for the order of keys, which stays the document's (`item-check.test.ts` holds the two together on every field of real records,
 * broken in every way). It exists because a state of 200,000 orders holds ~16 million values:
 * zod's copy of each doubled what a restore allocates and took half its time.
 */
export type InPlaceCheck = (value: unknown, holder: Record<string | number, unknown>, key: string | number) => boolean;

/** The parts of zod's internals read here (zod 4's `_zod`: its def, traits and checks). */
interface Internals {
  def: {
    type: string;
    checks?: Array<{ _zod: CheckInternals }>;
    coerce?: boolean;
    shape?: Record<string, z.ZodType>;
    catchall?: z.ZodType;
    innerType?: z.ZodType;
    element?: z.ZodType;
    keyType?: z.ZodType;
    valueType?: z.ZodType;
    options?: z.ZodType[];
    mode?: string;
  };
  traits: Set<string>;
  values?: Set<unknown>;
}
interface CheckInternals {
  def: { check?: string };
  check(payload: { value: unknown; issues: unknown[] }): unknown;
}

const internals = (schema: z.ZodType) => (schema as unknown as { _zod: Internals })._zod;

/** A compiled check and whether it may replace a part (then it cannot be tried as one option of several). */
interface Compiled {
  check: InPlaceCheck;
  pure: boolean;
}

/** `schema` compiled (a part met twice is compiled once). */
export function compileInPlace(schema: z.ZodType): InPlaceCheck {
  const cache = new Map<z.ZodType, Compiled>();
  const compile = (part: z.ZodType): Compiled => {
    let compiled = cache.get(part);
    if (!compiled) cache.set(part, (compiled = build(part, compile) ?? delegate(part)));
    return compiled;
  };
  return compile(schema).check;
}

type Compile = (schema: z.ZodType) => Compiled;

/** A part left to zod: parsed by its schema, and replaced by what zod makes of it. */
function delegate(schema: z.ZodType): Compiled {
  return {
    pure: false,
    check: (value, holder, key) => {
      const parsed = schema.safeParse(value);
      if (!parsed.success) return false;
      holder[key] = parsed.data;
      return true;
    },
  };
}

/** The schema's own checks (`.min()`, `.int()`, `.refine()`, …) run on the value: none may object. */
function checksOf(schema: z.ZodType): ((value: unknown) => boolean) | undefined | null {
  const zod = internals(schema);
  const checks = [...(zod.traits.has('$ZodCheck') ? [zod as unknown as CheckInternals] : []), ...(zod.def.checks ?? []).map((c) => c._zod)];
  if (checks.length === 0) return undefined;
  // An overwrite (trim, lower case, …) changes the value: not in place.
  if (checks.some((c) => c.def.check === 'overwrite')) return null;
  return (value) => {
    const payload = { value, issues: [] as unknown[] };
    for (const c of checks) {
      const result = c.check(payload);
      if (result instanceof Promise || payload.issues.length > 0) return false;
    }
    return true;
  };
}

function build(schema: z.ZodType, compile: Compile): Compiled | undefined {
  const zod = internals(schema);
  const def = zod.def;
  if (def.coerce) return undefined;
  const checks = checksOf(schema);
  if (checks === null) return undefined;
  const leaf = (test: (value: unknown) => boolean): Compiled => ({ pure: true, check: checks ? (value) => test(value) && checks(value) : (value) => test(value) });
  switch (def.type) {
    case 'string':
      return leaf((v) => typeof v === 'string');
    case 'number':
      return leaf((v) => typeof v === 'number' && Number.isFinite(v));
    case 'boolean':
      return leaf((v) => typeof v === 'boolean');
    case 'null':
      return leaf((v) => v === null);
    case 'unknown':
    case 'any':
      return leaf(() => true);
    case 'enum':
    case 'literal': {
      const values = zod.values;
      return values ? leaf((v) => values.has(v)) : undefined;
    }
    case 'nullable':
    case 'optional':
    case 'default': {
      if (checks) return undefined;
      // Optional and default are handled by the object (an absent key); a value present is the inner type's.
      const inner = compile(def.innerType!);
      if (def.type !== 'nullable') return inner;
      return { pure: inner.pure, check: (value, holder, key) => value === null || inner.check(value, holder, key) };
    }
    case 'array': {
      const element = compile(def.element!);
      return {
        pure: element.pure,
        check: (value, holder, key) => {
          if (!Array.isArray(value)) return false;
          for (let i = 0; i < value.length; i++) if (!element.check(value[i], value as unknown as Record<number, unknown>, i)) return false;
          return !checks || checks(value);
        },
      };
    }
    case 'record': {
      const keyDef = internals(def.keyType!).def;
      if (keyDef.type !== 'string' || checksOf(def.keyType!) !== undefined) return undefined;
      const valueType = def.valueType!;
      const anyValue = ['unknown', 'any'].includes(internals(valueType).def.type) && checksOf(valueType) === undefined;
      const item = anyValue ? undefined : compile(valueType);
      return {
        pure: item?.pure ?? true,
        check: (value) => {
          if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
          // zod writes a record key by key: a "__proto__" key would set the output's prototype.
          if (Object.hasOwn(value, '__proto__')) return false;
          if (item) {
            const record = value as Record<string, unknown>;
            for (const k of Object.keys(record)) if (!item.check(record[k], record, k)) return false;
          }
          return !checks || checks(value);
        },
      };
    }
    case 'object':
      return object(schema, checks, compile);
    case 'union': {
      const options = (def.options ?? []).map(compile);
      // An option tried and failed must not have replaced anything: every option pure.
      if (options.length === 0 || options.some((o) => !o.pure)) return undefined;
      return {
        pure: true,
        check: (value, holder, key) => options.some((o) => o.check(value, holder, key)) && (!checks || checks(value)),
      };
    }
    default:
      return undefined;
  }
}

/**
 * An object whose keys are all the shape's (zod strips unknown ones) and whose required ones are
 * all there, in any order: zod's output would list them in the shape's order, the value keeps the
 * document's (a key order is no part of the document's meaning, and a round trip keeps it whole).
 */
function object(schema: z.ZodType, checks: ((value: unknown) => boolean) | undefined, compile: Compile): Compiled | undefined {
  const def = internals(schema).def;
  if (def.catchall !== undefined) return undefined; // loose or strict: left to zod
  const shape = def.shape!;
  const fields = new Map(
    // An absent key: fine for an optional one (absent in the output too); a default would be filled in.
    Object.keys(shape).map((key) => [key, { field: compile(shape[key]!), required: internals(shape[key]!).def.type !== 'optional' }] as const),
  );
  const required = [...fields.values()].filter((f) => f.required).length;
  const pure = [...fields.values()].every((f) => f.field.pure);
  return {
    pure,
    check: (value) => {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
      const record = value as Record<string, unknown>;
      let present = 0;
      // (JSON.parse and zod make plain objects: nothing inherited is enumerated)
      for (const key in record) {
        const known = fields.get(key);
        if (known === undefined) return false; // zod would strip it
        if (!known.field.check(record[key], record, key)) return false;
        if (known.required) present++;
      }
      return present === required && (!checks || checks(value));
    },
  };
}
