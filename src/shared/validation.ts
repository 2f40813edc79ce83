import type { z } from 'zod';
import { ApiError } from './errors';

/**
 * Parses `input` or throws the spec's 422 `<field.path>: <reason>` for the first issue.
 * @example parseOrThrow(CreateOrderBodySchema, ctx.request.body)
 */
export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown, prefix = ''): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const path = [prefix, ...(issue?.path ?? []).map(String)].filter(Boolean).join('.');
  throw new ApiError('E_VALIDATION_ERROR', `${path || 'body'}: ${issue?.message ?? 'invalid'}`);
}
