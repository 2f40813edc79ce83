import type { z } from 'zod';
import { parseOrThrow } from '../../shared/validation';
import { deepFreeze } from '../../shared/freeze';

/**
 * A route's query parser that parses an empty query once (docs/decisions/016-empty-query-parsed-once.md).
 * Most requests to a route with optional query parameters send none (every poll of an order):
 * its schema's answer to `{}` is the same every time, so it is kept, frozen through and through,
 * and handed out for every request without a query string. Any other query is parsed as it
 * comes. A schema that refuses `{}` throws its 422 every time (nothing is kept from a failure).
 * @example const query = queryParser(IncludeQuerySchema); query(ctx.querystring, () => ctx.query)
 */
export function queryParser<S extends z.ZodType>(schema: S): (querystring: string, query: () => unknown) => z.output<S> {
  let empty: z.output<S> | undefined;
  let parsed = false;
  return (querystring, query) => {
    if (querystring !== '') return parseOrThrow(schema, query());
    if (!parsed) {
      empty = deepFreeze(parseOrThrow(schema, {}));
      parsed = true;
    }
    return empty as z.output<S>;
  };
}
