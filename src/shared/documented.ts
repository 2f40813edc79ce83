import type { z } from 'zod';

/**
 * What the OpenAPI document (CONTRACT §10, §19) says of a request or response, where a schema
 * enforces more than JSON Schema can read off it: a refinement, a transform, a `.trim()` before a
 * length check, a rule a handler checks. Patterns here are written for every regex dialect alike
 * (`[0-9]`, never `\d` or `\w`, which some validators read as Unicode classes), and are meant to
 * go in `.meta({ pattern })` beside the zod checks they describe: a string such a pattern allows,
 * the zod schema accepts (`documented.test.ts` checks each on generated strings).
 */

const DOCUMENTED = new WeakMap<z.ZodType, z.ZodType>();

/**
 * `parser` as the document states it: `doc` says in JSON Schema what the parser's refinements and
 * the route's handler enforce (a union for "quote_id or legs", a discriminated union on
 * `outcome`, …). Routes parse with `parser`; `GET /openapi.json` is generated from `doc`; the
 * generated-request test (test/http/openapi-requests.test.ts) keeps the two agreeing.
 * @example export const PayoutBodySchema = documentedAs(z.object({ … }).refine(…), PayoutOutcomeSchema)
 */
export function documentedAs<S extends z.ZodType>(parser: S, doc: z.ZodType): S {
  DOCUMENTED.set(parser, doc);
  return parser;
}

/** The schema the document is generated from for `schema`: its `documentedAs` form, or itself. */
export function documentationOf(schema: z.ZodType): z.ZodType {
  return DOCUMENTED.get(schema) ?? schema;
}

/**
 * Every character of the Basic Multilingual Plane. zod counts a string's length in UTF-16 code
 * units and JSON Schema in code points: for text of this plane alone the two agree, so a
 * `maxLength` the document states is the one the server applies.
 */
const BMP = '\\u0000-\\ud7ff\\ue000-\\uffff';
/**
 * The BMP less the characters `String.prototype.trim` removes (ECMAScript WhiteSpace and
 * LineTerminator: \t \n \v \f \r, space, \u00a0, \u1680, \u2000-\u200a, \u2028, \u2029, \u202f,
 * \u205f, \u3000, \ufeff), as positive ranges (a negated class would let other planes in), spelled
 * out so that no dialect reads `\s` its own way.
 */
const BMP_NOT_TRIMMED =
  '\\u0000-\\u0008\\u000e-\\u001f\\u0021-\\u009f\\u00a1-\\u167f\\u1681-\\u1fff\\u200b-\\u2027\\u202a-\\u202e\\u2030-\\u205e\\u2060-\\u2fff\\u3001-\\ud7ff\\ue000-\\ufefe\\uff00-\\uffff';

/** Text of the Basic Multilingual Plane (see BMP): the document's form of a string with a length limit. */
export const TEXT_PATTERN = `^[${BMP}]*$`;

/**
 * Text that `.trim()` leaves as it is: the document's form of `z.string().trim().min(1)`. A
 * string with whitespace first or last is accepted by the server (trimmed) but not documented,
 * so a length the document states is the length checked.
 */
export const TRIMMED_PATTERN = `^[${BMP_NOT_TRIMMED}](?:[${BMP}]*[${BMP_NOT_TRIMMED}])?$`;

/** Exactly what `z.email()` accepts (zod's own regex, its classes written out). */
export const EMAIL_PATTERN = "^(?:[A-Za-z0-9_'+-]+\\.)*[A-Za-z0-9_'+-]*[A-Za-z0-9_+-]@(?:[A-Za-z0-9][A-Za-z0-9-]*\\.)+[A-Za-z]{2,}$";

const OCTET = '(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])';
/** An IPv4 address in dotted decimal, no leading zeros (as Node's `net.isIPv4`). */
const IPV4 = `${OCTET}(?:\\.${OCTET}){3}`;

const LABEL = '[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*';
const LAST_LABEL = '[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*';
const PORT = '(?:6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[1-9][0-9]{0,3}|0)';
/**
 * An http(s) URL the server's `z.url({ protocol: /^https?$/ })` accepts: a host name whose last
 * label starts with a letter (`localhost`, `hooks.partner.example`), an IPv4 address or `[::1]`,
 * an optional port, then any printable ASCII. The server accepts more (user info, IPv6
 * literals, other characters in the path); the document keeps to what every URL parser reads alike.
 */
export const HTTP_URL_PATTERN = `^https?://(?:(?:${LABEL}\\.)*${LAST_LABEL}|${IPV4}|\\[::1\\])(?::${PORT})?(?:[/?#][!-~]*)?$`;

/**
 * The document's word that `fields` may not be given (`network` on a fiat leg, `percentage` with
 * an outcome other than partial): an object-level `not`, to spread into `.meta()`. Each branch
 * names its field in `properties` too, so a linter reading the branch alone finds it defined,
 * with the empty schema `{}`: it means what `true` does, and some generators (openapi-python-client)
 * refuse a document with a boolean sub-schema.
 * @example .meta({ id: 'FiatLeg', ...ruledOut('network') })
 */
export function ruledOut(...fields: string[]): { not: Record<string, unknown> } {
  const branch = (field: string) => ({ required: [field], properties: { [field]: {} } });
  return { not: fields.length === 1 ? branch(fields[0]!) : { anyOf: fields.map(branch) } };
}
