import { compile, type z } from 'zod';
import { ApiError } from './errors';

/** Each schema parsed here, compiled at its first parse (`compiledOf`). */
const compiled = new WeakMap<z.ZodType, z.ZodType>();

/**
 * The schema as zod's `z.compile` makes it (docs/decisions/022-schemas-compiled.md): a clone
 * whose parse runs generated, loop-free code first and zod's own parser only when that fails,
 * so the output and the issues are zod's. Compiled at the first parse, not when the schema is
 * made: a sandbox starts without compiling the routes it is never asked. A schema zod cannot
 * compile comes back as it is.
 */
export function compiledOf<S extends z.ZodType>(schema: S): S {
  let fast = compiled.get(schema);
  if (fast === undefined) {
    fast = compile(schema);
    compiled.set(schema, fast);
  }
  return fast as S;
}

/**
 * Parses `input` (with the schema compiled, `compiledOf`) or throws the spec's 422
 * `<field.path>: <reason>` for the first issue.
 * @example parseOrThrow(CreateOrderBodySchema, ctx.request.body)
 */
export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown, prefix = ''): z.output<S> {
  const result = compiledOf(schema).safeParse(input);
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
