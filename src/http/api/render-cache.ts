/**
 * Answers rendered once and shared (docs/decisions/008-render-cache.md). Routes answering data
 * that changes rarely answer strings made once: a reference list is serialised once, and the
 * success envelope around already-serialised data is the very same string while the data is
 * the same (the same list, or an order polled again between its changes; the order detail is
 * rendered once per change by the orders' own cache, `detailJson`). Besides the work saved, the
 * request inspector keeps its last 10,000 answers (CONTRACT §11): shared, they are kept once
 * rather than once per request for the GC to promote and carry. `render-cache.test.ts` checks
 * every answer equals a fresh render.
 */

/** The start of the spec §2.1 success envelope of `message`, up to where `data` goes. */
export function envelopeHead(message: string): string {
  return `{"status":true,"message":${JSON.stringify(message)},"data":`;
}

/**
 * The success envelope around serialised `data`, for one route: the same string as last time
 * while `data` is the same.
 * @example const envelope = sharedEnvelope('Networks retrieved'); ctx.body = envelope(json);
 */
export function sharedEnvelope(message: string): (json: string) => string {
  const head = envelopeHead(message);
  let lastJson: string | undefined;
  let lastBody = '';
  return (json) => {
    if (json !== lastJson) {
      lastJson = json;
      lastBody = `${head}${json}}`;
    }
    return lastBody;
  };
}

/**
 * JSON of data that never changes while the sandbox runs (reference lists), serialised at the
 * first request for each key and answered from then on.
 * @example const rendered = renderedOnce(); rendered('test|networks', () => ref.networks('test'));
 */
export function renderedOnce(): (key: string, build: () => unknown) => string {
  const rendered = new Map<string, string>();
  return (key, build) => {
    let json = rendered.get(key);
    if (json === undefined) rendered.set(key, (json = JSON.stringify(build())));
    return json;
  };
}
