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
