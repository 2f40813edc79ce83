import { compile, type z } from 'zod';
import { ApiError } from './errors';

/**
 * Each schema parsed here: null after its first parse, its compiled clone from its second on
 * (`parserOf`).
 */
const compiled = new WeakMap<z.ZodType, z.ZodType | null>();

/**
 * The schema as zod's `z.compile` makes it (docs/decisions/022-schemas-compiled.md): a clone
 * whose parse runs generated, loop-free code first and zod's own parser only when that fails,
 * so the output and the issues are zod's. Made once per schema and kept. A schema zod cannot
 * compile comes back as it is.
 */
export function compiledOf<S extends z.ZodType>(schema: S): S {
  let fast = compiled.get(schema);
  if (!fast) {
    fast = compile(schema);
    compiled.set(schema, fast);
  }
  return fast as S;
}

/**
 * What `parseOrThrow` parses with: the schema itself at its first parse, its compiled clone
 * (`compiledOf`) from its second on. A schema parsed once (a route's empty query, a start-up
 * option, a state document restored) is not compiled for nothing: compiling costs ~0.2–5 ms,
 * and the first request a sandbox answers would pay it.
 */
function parserOf<S extends z.ZodType>(schema: S): S {
  const fast = compiled.get(schema);
  if (fast) return fast as S;
  if (fast === undefined) {
    compiled.set(schema, null);
    return schema;
  }
  return compiledOf(schema);
}

/**
 * Parses `input` (with the schema compiled from its second parse on, `parserOf`) or throws
 * the spec's 422 `<field.path>: <reason>` for the first issue.
 * @example parseOrThrow(CreateOrderBodySchema, ctx.request.body)
 */
export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown, prefix = ''): z.output<S> {
  const result = parserOf(schema).safeParse(input);
  if (result.success) return result.data;
  const { path, message } = firstIssue(result.error, prefix);
  throw new ApiError('E_VALIDATION_ERROR', `${path || 'body'}: ${message}`);
}

/**
 * The first issue of a failed parse as a dotted field path (under `prefix`) and its reason:
 * the one rule by which every parse in the sandbox names what is wrong.
 */
export function firstIssue(error: z.ZodError, prefix = ''): { path: string; message: string; segments: PropertyKey[] } {
  const issue = error.issues[0];
  const segments = issue?.path ?? [];
  return {
    path: [prefix, ...segments.map(String)].filter(Boolean).join('.'),
    message: issue?.message ?? 'invalid',
    segments,
  };
}

/**
 * Where a value `schema` accepts may nest without bound (for `tooDeepAlong`): each path of keys
 * (`'*'` for every key or item) to an `unknown` or `any`, a recursive (lazy) schema, or a kind
 * this walk does not know (taken as free-form, to be safe). Derived from the schema, so a field
 * added to it is covered without a list to keep.
 */
export function freeFormPaths(schema: z.ZodType): string[][] {
  const out = new Map<string, string[]>();
  const walk = (s: z.ZodType, path: string[], seen: ReadonlySet<z.ZodType>): void => {
    const free = () => void out.set(path.join('\0'), path);
    if (seen.has(s)) {
      free(); // a cycle
      return;
    }
    const def = (s as z.core.$ZodType)._zod.def as z.core.$ZodTypeDef & Record<string, unknown>;
    const within = new Set([...seen, s]);
    const inner = (t: unknown, at: string[] = path) => walk(t as z.ZodType, at, within);
    switch (def.type) {
      case 'string':
      case 'number':
      case 'int':
      case 'boolean':
      case 'bigint':
      case 'null':
      case 'undefined':
      case 'literal':
      case 'enum':
      case 'date':
      case 'nan':
      case 'never':
      case 'void':
      case 'symbol':
      case 'template_literal':
        break;
      case 'object': {
        for (const [key, field] of Object.entries(def.shape as Record<string, z.ZodType>)) inner(field, [...path, key]);
        const rest = def.catchall as z.ZodType | undefined;
        if (rest && (rest as z.core.$ZodType)._zod.def.type !== 'never') inner(rest, [...path, '*']);
        break;
      }
      case 'array':
        inner(def.element, [...path, '*']);
        break;
      case 'record':
        inner(def.valueType, [...path, '*']);
        break;
      case 'tuple':
        for (const item of [...(def.items as z.ZodType[]), ...(def.rest ? [def.rest] : [])]) inner(item, [...path, '*']);
        break;
      case 'union':
        for (const option of def.options as z.ZodType[]) inner(option);
        break;
      case 'intersection':
        inner(def.left);
        inner(def.right);
        break;
      case 'nullable':
      case 'optional':
      case 'default':
      case 'prefault':
      case 'catch':
      case 'readonly':
      case 'nonoptional':
        inner(def.innerType);
        break;
      case 'pipe':
        inner(def.in);
        break;
      default: // unknown, any, lazy, custom, …
        free();
    }
  };
  walk(schema, [], new Set());
  return [...out.values()];
}
