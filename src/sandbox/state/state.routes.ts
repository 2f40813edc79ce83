import * as z from 'zod';
import { rawChunks, type AnyRouteSpec, type Api } from '../../http/api/api';
import { ApiError, badRequest } from '../../shared/errors';
import { StateSaveError } from './file';
import { StateDocumentSchema, StateSummarySchema, type StateDocument, type StateSummary } from './state.schema';

const admin = { auth: 'admin', tag: 'sandbox' } as const;

const SavedSchema = z
  .object({ path: z.string(), bytes: z.number().int().nonnegative(), summary: StateSummarySchema })
  .meta({ id: 'StateSaved' });

// The specs are exported so the control client (src/client/control-client.ts) is typed by them.
export const getStateSpec = {
  ...admin,
  method: 'GET',
  path: '/sandbox/state',
  operationId: 'getState',
  summary: 'The whole sandbox state as one JSON document',
  data: StateDocumentSchema,
  message: 'State retrieved',
} as const satisfies AnyRouteSpec;
export const putStateSpec = {
  ...admin,
  method: 'PUT',
  path: '/sandbox/state',
  operationId: 'putState',
  summary: 'Replace the whole state with a document from GET /sandbox/state (422 and nothing changed if it does not validate)',
  body: StateDocumentSchema,
  data: StateSummarySchema,
  message: 'State restored',
} as const satisfies AnyRouteSpec;
export const saveStateSpec = {
  ...admin,
  method: 'POST',
  path: '/sandbox/state/save',
  operationId: 'saveState',
  summary: 'Write the state to --state FILE now (atomically)',
  data: SavedSchema,
  message: 'State saved',
  errors: [400, 507],
  // It takes the document itself (holding the changes while it streams): it is no change to wait for.
  changesState: false,
} as const satisfies AnyRouteSpec;

export interface StateRoutesDeps {
  /** The document as JSON chunks (CONTRACT §13: streamed, whatever its size, in slices). */
  exportChunks(): AsyncIterable<string | Uint8Array>;
  restoreState(doc: StateDocument): void;
  summary(): StateSummary;
  /** `--state FILE`, if set: where `POST /sandbox/state/save` writes. */
  statePath: string | undefined;
  /** Writes the document there; the bytes written and the summary of what was written. */
  save(path: string): Promise<{ bytes: number; summary: StateSummary }>;
}

/** CONTRACT §13: the whole state as one document, replaced whole, and saved to `--state FILE`. */
export function registerStateRoutes(api: Api, deps: StateRoutesDeps): void {
  api.route(getStateSpec, async () => rawChunks(await readAhead(deps.exportChunks())));
  api.route(putStateSpec, ({ body }) => {
    deps.restoreState(body);
    return deps.summary();
  });
  api.route(saveStateSpec, async () => {
    const path = deps.statePath;
    if (!path)
      throw badRequest(
        'No state file: start the sandbox with --state FILE (or SANDBOX_STATE) to save to one; GET /sandbox/state returns the document',
      );
    try {
      return { path, ...(await deps.save(path)) };
    } catch (error) {
      if (error instanceof StateSaveError)
        throw new ApiError('E_STATE_NOT_SAVED', `The state was not saved: ${error.message}; the previous file, if any, is unchanged`);
      throw error;
    }
  });
}

/**
 * Pulls `source` to its end as fast as it is made, keeping what the reader has not taken yet: a
 * slow reader (or one that stopped reading) never holds the changes a streamed document holds
 * (CONTRACT §13), at the cost of keeping the rest of the document until it is read. Resolves once
 * the first chunk is made, so a document that cannot be made at all is still an error envelope.
 */
export async function readAhead<T>(source: AsyncIterable<T>): Promise<AsyncIterable<T>> {
  const queue: T[] = [];
  let done = false;
  let failure: { error: unknown } | undefined;
  let wake: (() => void) | undefined;
  let started!: () => void;
  const first = new Promise<void>((resolve) => (started = resolve));
  void (async () => {
    try {
      for await (const chunk of source) {
        queue.push(chunk);
        started();
        wake?.();
      }
    } catch (error) {
      failure = { error };
    } finally {
      done = true;
      started();
      wake?.();
    }
  })();
  await first;
  if (failure && queue.length === 0) throw failure.error;
  return {
    async *[Symbol.asyncIterator]() {
      for (;;) {
        if (queue.length > 0) {
          yield queue.shift()!;
          continue;
        }
        if (done) {
          if (failure) throw failure.error;
          return;
        }
        await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
      }
    },
  };
}
