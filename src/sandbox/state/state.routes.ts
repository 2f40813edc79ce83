import * as z from 'zod';
import { rawChunks, type AnyRouteSpec, type Api } from '../../http/api';
import { ApiError, badRequest } from '../../shared/errors';
import { StateSaveError } from './file';
import { StateDocumentSchema, StateSummarySchema, type StateDocument, type StateSummary } from './state.schema';

const admin = { auth: 'admin', tag: 'sandbox' } as const;

const SavedSchema = z
  .object({ path: z.string(), bytes: z.number().int().nonnegative(), summary: StateSummarySchema })
  .meta({ id: 'StateSaved' });

// The specs are exported so the control client (src/client/control-client.ts) is typed by them.
export const getStateSpec = { ...admin, method: 'GET', path: '/sandbox/state', operationId: 'getState', summary: 'The whole sandbox state as one JSON document', data: StateDocumentSchema, message: 'State retrieved' } as const satisfies AnyRouteSpec;
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
export const saveStateSpec = { ...admin, method: 'POST', path: '/sandbox/state/save', operationId: 'saveState', summary: 'Write the state to --state FILE now (atomically)', data: SavedSchema, message: 'State saved', errors: [400, 507] } as const satisfies AnyRouteSpec;

export interface StateRoutesDeps {
  /** The document as JSON chunks (CONTRACT §13: streamed, whatever its size). */
  exportChunks(): string[];
  restoreState(doc: StateDocument): void;
  summary(): StateSummary;
  /** `--state FILE`, if set: where `POST /sandbox/state/save` writes. */
  statePath: string | undefined;
  save(path: string): Promise<number>;
}

/** CONTRACT §13: the whole state as one document, replaced whole, and saved to `--state FILE`. */
export function registerStateRoutes(api: Api, deps: StateRoutesDeps): void {
  api.route(
    getStateSpec,
    () => rawChunks(deps.exportChunks()),
  );
  api.route(
    putStateSpec,
    ({ body }) => {
      deps.restoreState(body);
      return deps.summary();
    },
  );
  api.route(
    saveStateSpec,
    async () => {
      const path = deps.statePath;
      if (!path) throw badRequest('No state file: start the sandbox with --state FILE (or SANDBOX_STATE) to save to one; GET /sandbox/state returns the document');
      const summary = deps.summary();
      try {
        return { path, bytes: await deps.save(path), summary };
      } catch (error) {
        if (error instanceof StateSaveError) throw new ApiError('E_STATE_NOT_SAVED', `The state was not saved: ${error.message}; the previous file, if any, is unchanged`);
        throw error;
      }
    },
  );
}
