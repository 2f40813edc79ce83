/**
 * Validates a HAR document against the HAR 1.2 JSON schema of the `har-schema` package (the
 * schemas themselves, draft-06), with the repository's ajv. `har-validator`, which wraps the same
 * schemas, is unmaintained and pins ajv 6, so the schemas are compiled here instead.
 */
import { createRequire } from 'node:module';
import { Ajv, type ErrorObject } from 'ajv';
import addFormatsModule from 'ajv-formats';
import draft06 from 'ajv/dist/refs/json-schema-draft-06.json' with { type: 'json' };

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv) => void;

/** har-schema: `{har, log, entry, request, …}`, each a schema with an `$id` such as `log.json#`. */
const schemas = createRequire(import.meta.url)('har-schema') as Record<string, { $id: string }>;

// strict off: the schemas carry keywords no draft defines (`optional`, `min`).
const ajv = new Ajv({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addMetaSchema(draft06);
for (const schema of Object.values(schemas)) ajv.addSchema(schema);
const validateHar = ajv.getSchema('har.json#')!;

/** The schema errors of `doc` as a HAR 1.2 document (empty when it is one). */
export function harErrors(doc: unknown): ErrorObject[] {
  return validateHar(doc) ? [] : [...(validateHar.errors ?? [])];
}
