// The vocabularies the page offers in its selects (statuses, events, …), read from the
// sandbox's own OpenAPI document so the page never keeps a list of its own.
/** @import { Meta, OpenApiVocabularies } from './types' */

/** @type {Promise<Meta> | undefined} */
let loaded;

/**
 * `{statuses, events, types, kyb, deliveryStatuses, environments}`, from GET /openapi.json.
 * @returns {Promise<Meta>}
 */
export function loadMeta() {
  loaded ??= fetch('/openapi.json')
    .then((res) => res.json())
    .then((/** @type {OpenApiVocabularies} */ doc) => {
      const s = doc.components.schemas;
      return {
        statuses: s.OrderSummary.properties.status.enum,
        events: s.WebhookEvent.enum,
        types: s.OrderType.enum,
        kyb: s.KybStatus.enum,
        deliveryStatuses: s.DeliveryStatus.enum,
        environments: s.SandboxOrderSummary.properties.environment.enum,
      };
    });
  return loaded;
}
