/** HTTP status per spec §7 code; 400/404/409/429 come from CONTRACT §3. */
export const STATUS_BY_CODE = {
  E_BADREQUEST: 400,
  E_UNAUTHORIZED: 401,
  E_FORBIDDEN: 403,
  E_IP_BLOCKED: 403,
  E_NOTFOUND: 404,
  E_CONFLICT: 409,
  E_VALIDATION_ERROR: 422,
  E_RATE_LIMITED: 429,
  /** Not a spec code, on purpose: an injected 5xx (CONTRACT §12) is never mistaken for a real one. */
  E_SANDBOX_FAULT: 500,
  /** Not a spec code: the control API could not write the state file (CONTRACT §13; disk, permissions). */
  E_STATE_NOT_SAVED: 507,
} as const;

export type ErrorCode = keyof typeof STATUS_BY_CODE;
export const ERROR_CODES = Object.keys(STATUS_BY_CODE) as ErrorCode[];

export interface ApiErrorOptions extends ErrorOptions {
  /** Overrides the status of the code table (405 and 413 are E_BADREQUEST too). */
  status?: number;
  /** Render the spec §5.4 alternative body `{status:"failed", message, data:null}`. */
  alternative?: boolean;
  /** Extra response headers (Allow, Retry-After, svc-sandbox-hint). */
  headers?: Record<string, string>;
}

/** The one error type: domain code throws it, only http/edge/errors.ts renders it. */
export class ApiError extends Error {
  readonly status: number;
  readonly alternative: boolean;
  readonly headers: Record<string, string>;

  constructor(
    readonly code: ErrorCode,
    message: string,
    options: ApiErrorOptions = {},
  ) {
    super(message, options);
    this.name = 'ApiError';
    this.status = options.status ?? STATUS_BY_CODE[code];
    this.alternative = options.alternative ?? false;
    this.headers = options.headers ?? {};
  }
}

/** Shorthands, so call sites read as the condition they raise. */
export const badRequest = (message: string, options?: ApiErrorOptions) => new ApiError('E_BADREQUEST', message, options);
export const notFound = (message: string) => new ApiError('E_NOTFOUND', message);
export const conflict = (message: string) => new ApiError('E_CONFLICT', message);
export const unauthorized = (message: string, options?: ApiErrorOptions) => new ApiError('E_UNAUTHORIZED', message, options);
export const forbidden = (message: string) => new ApiError('E_FORBIDDEN', message);
export const validationError = (field: string, reason: string) => new ApiError('E_VALIDATION_ERROR', `${field}: ${reason}`);
