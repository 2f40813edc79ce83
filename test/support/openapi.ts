/**
 * Checks responses against the sandbox's own OpenAPI document (CONTRACT §10: every response
 * the sandbox sends validates against it). `test/support/server.ts` runs every HTTP test's
 * responses through this, so no route escapes.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

// ajv-formats is CommonJS; under ESM its default export is the function or holds it.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => void;

type Response = { content?: Record<string, unknown>; $ref?: string };
type Doc = {
  paths: Record<string, Record<string, { responses: Record<string, Response> }>>;
  webhooks?: Record<string, unknown>;
  components?: { responses?: Record<string, Response> };
};

export interface ResponseChecker {
  /** Throws, naming the route and the first schema error, when a response is not as documented. */
  check(method: string, pathWithQuery: string, status: number, contentType: string | null, text: string): void;
  /** Throws when a webhook body is not the documented payload of its event. */
  checkWebhook(body: unknown): void;
  /**
   * Compiles every validator now (once per process): compiled on first use, a large one holds the
   * event loop long enough to time out a webhook attempt to an in-process receiver mid-test.
   */
  warm(): void;
}

const escapePointer = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

/** Checkers made in this process, by the document's text: every test server of a file shares one. */
const CHECKERS = new Map<string, ResponseChecker>();

export function createResponseChecker(doc: Doc): ResponseChecker {
  const text = JSON.stringify(doc);
  let checker = CHECKERS.get(text);
  if (!checker) CHECKERS.set(text, (checker = newChecker(doc)));
  return checker;
}

function newChecker(doc: Doc): ResponseChecker {
  // inlineRefs off: a component is compiled once and shared by every response that refers to
  // it, rather than copied into each (the order detail's variants made that copy slow).
  const ajv = new Ajv2020({ strict: false, allErrors: false, validateSchema: false, inlineRefs: false });
  addFormats(ajv);
  ajv.addSchema({ ...doc, $id: 'openapi.json' });
  const templates = Object.keys(doc.paths).map((template) => ({
    template,
    params: (template.match(/\{/g) ?? []).length,
    re: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{\w+\\?\}/g, '[^/]+')}$`),
  }));
  templates.sort((a, b) => a.params - b.params);
  const cache = new Map<string, ValidateFunction>();
  const validator = (pointer: string) => {
    let v = cache.get(pointer);
    if (!v) {
      v = ajv.getSchema(`openapi.json#${pointer}`);
      if (!v) throw new Error(`OpenAPI: no schema at ${pointer}`);
      cache.set(pointer, v);
    }
    return v;
  };
  const errorPointer = '/components/schemas/Error';

  function validate(where: string, pointer: string, body: unknown) {
    const v = validator(pointer);
    if (!v(body)) {
      const e = v.errors?.[0];
      throw new Error(
        `${where}: response does not match the OpenAPI document at ${e?.instancePath || '(root)'}: ${e?.message} ${JSON.stringify(e?.params)}\n${JSON.stringify(body).slice(0, 400)}`,
      );
    }
  }

  return {
    check(method, pathWithQuery, status, contentType, text) {
      // The router ignores one trailing slash (koa-router's non-strict matching), except where
      // an item route follows: `/sandbox/faults/` is an item with an empty id, no route (app.ts).
      const given = pathWithQuery.split('?')[0]!;
      const emptyItem = /.\/$/.test(given) && templates.some((t) => t.re.test(`${given}_`) && t.template.endsWith('}'));
      const path = given.replace(/(.)\/$/, '$1');
      const m = method.toLowerCase();
      const where = `${method} ${pathWithQuery} → ${status}`;
      if (m === 'head') return;
      const matches = emptyItem ? [] : templates.filter((t) => t.re.test(path));
      const item = matches.find((t) => doc.paths[t.template]![m]) ?? matches[0];
      const op = item ? doc.paths[item.template]![m] : undefined;
      const parse = () => {
        try {
          return JSON.parse(text);
        } catch {
          throw new Error(`${where}: body is not JSON: ${text.slice(0, 200)}`);
        }
      };
      if (!op) {
        // Unknown route or method: an error in the envelope (404, 405, or what came first).
        if (status < 400) throw new Error(`${where}: success from a route the OpenAPI document does not have`);
        validate(where, errorPointer, parse());
        return;
      }
      let response = op.responses[String(status)];
      if (!response) throw new Error(`${where}: status ${status} is not documented for ${method} ${item!.template}`);
      // An error answer refers to a named response (components.responses).
      let pointer = `/paths/${escapePointer(item!.template)}/${m}/responses/${status}`;
      if (response.$ref) {
        pointer = response.$ref.slice(1);
        response = doc.components?.responses?.[response.$ref.split('/').pop()!] ?? {};
      }
      const types = Object.keys(response.content ?? {});
      const media = types[0];
      if (!media) return;
      if (!types.includes('application/json')) {
        // Not JSON (the dashboard's page, assets and event stream): one of the documented types.
        if (!types.some((t) => contentType?.startsWith(t))) throw new Error(`${where}: expected ${types.join(' or ')}, got ${contentType}`);
        return;
      }
      if (!contentType?.startsWith('application/json')) throw new Error(`${where}: expected application/json, got ${contentType}`);
      validate(where, `${pointer}/content/${escapePointer(media)}/schema`, parse());
    },
    warm() {
      const seen = new Set<string>();
      for (const [template, item] of Object.entries(doc.paths)) {
        for (const [m, op] of Object.entries(item)) {
          for (const [status, response] of Object.entries(op.responses)) {
            const pointer = response.$ref ? response.$ref.slice(1) : `/paths/${escapePointer(template)}/${m}/responses/${status}`;
            const target = response.$ref ? doc.components?.responses?.[response.$ref.split('/').pop()!] : response;
            if (!target?.content?.['application/json'] || seen.has(pointer)) continue;
            seen.add(pointer);
            validator(`${pointer}/content/application~1json/schema`);
          }
        }
      }
      for (const event of Object.keys(doc.webhooks ?? {}))
        validator(`/webhooks/${escapePointer(event)}/post/requestBody/content/application~1json/schema`);
    },
    checkWebhook(body) {
      const event = (body as { event?: unknown })?.event;
      if (typeof event !== 'string' || !doc.webhooks?.[event]) throw new Error(`webhook: no documented event ${String(event)}`);
      validate(`webhook ${event}`, `/webhooks/${escapePointer(event)}/post/requestBody/content/application~1json/schema`, body);
    },
  };
}
