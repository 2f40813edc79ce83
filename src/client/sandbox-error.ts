import type { ErrorCode } from '../shared/errors';

/**
 * Thrown by the control client (control-client.ts), and so by the in-process handle's functions,
 * when the control API answers an error: the HTTP `status` and the envelope's `code` and
 * `message`, as `{status:false, code, message}` says.
 * @example
 * await expect(sandbox.orders.payin('nope')).rejects.toMatchObject({ status: 404, code: 'E_NOTFOUND' });
 */
export class SandboxError extends Error {
  override name = 'SandboxError';
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    /** Method and path of the control route that answered. */
    readonly route: string,
  ) {
    super(message);
  }
}
