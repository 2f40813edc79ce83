import type { z } from 'zod';
import { ApiError } from './errors';

/**
 * Parses `input` or throws the spec's 422 `<field.path>: <reason>` for the first issue.
 * @example parseOrThrow(CreateOrderBodySchema, ctx.request.body)
 */
export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown, prefix = ''): z.output<S> {
  const result = schema.safeParse(input);
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
