import { signRequest, type KeySet } from '../auth';
import { httpRequest } from '../transport/http-request';

export interface Reply<T = any> {
  /** 0 when the connection was closed without an answer. */
  status: number;
  body: T;
  text: string;
  /** The connection was closed without an answer (e.g. an injected `drop` fault). */
  dropped?: boolean;
}

/** Socket errors that mean the server closed the connection without answering. */
const DROPPED = new Set(['ECONNRESET', 'EPIPE']);

/** Who the runner acts as on /v1. */
export interface PartnerIdentity {
  client_id: string;
  keys: { test: KeySet; live: KeySet };
}

/** A thin HTTP client for one sandbox: /v1 signed as a partner, /sandbox with the admin token. */
export class SandboxClient {
  constructor(
    readonly baseUrl: string,
    private readonly adminToken?: string,
  ) {}

  private readonly formats = new Map<string, Promise<Map<string, 'evm' | 'tron' | 'solana'>>>();

  /** Address format of each network of an environment, read once per sandbox and environment. */
  addressFormats(as: PartnerIdentity, env: 'test' | 'live'): Promise<Map<string, 'evm' | 'tron' | 'solana'>> {
    let formats = this.formats.get(env);
    if (!formats) {
      formats = this.publicGet('/v1/networks', as, env).then((res) => {
        if (res.status !== 200) {
          this.formats.delete(env);
          throw new Error(`GET /v1/networks answered ${res.status}`);
        }
        return new Map<string, 'evm' | 'tron' | 'solana'>(
          (res.body.data as Array<{ identifier: string; is_evm: boolean }>).map((n) => [
            n.identifier,
            n.is_evm ? 'evm' : n.identifier.includes('tron') ? 'tron' : 'solana',
          ]),
        );
      });
      this.formats.set(env, formats);
    }
    return formats;
  }

  async control<T = any>(method: string, path: string, body?: unknown): Promise<Reply<T>> {
    const headers: Record<string, string> = {};
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (this.adminToken) headers.authorization = `Bearer ${this.adminToken}`;
    return this.send(method, path, headers, body === undefined ? undefined : JSON.stringify(body));
  }

  /**
   * A signed /v1 call; a 429 is waited out (Retry-After) and tried again, as a partner client
   * should, unless `retry429` is false (a step that expects the 429).
   */
  async v1<T = any>(method: string, path: string, as: PartnerIdentity, env: 'test' | 'live', body?: unknown, retry429 = true): Promise<Reply<T>> {
    const raw = body === undefined ? undefined : JSON.stringify(body);
    const keys = as.keys[env];
    return this.withRetryAfter(retry429, () => {
      // Signed per attempt: each retry carries a fresh timestamp.
      const headers = signRequest({ method, path, body: raw, clientId: as.client_id, secretKey: keys.secret_key, encryptionKey: keys.encryption_key });
      return this.send(method, path, headers, raw);
    });
  }

  async publicGet<T = any>(path: string, as: PartnerIdentity, env: 'test' | 'live'): Promise<Reply<T>> {
    return this.withRetryAfter(true, () => this.send('GET', path, { 'svc-client-id': as.client_id, authorization: `Bearer ${as.keys[env].public_key}` }));
  }

  private async withRetryAfter(retry: boolean, call: () => Promise<Reply & { retryAfter?: number }>): Promise<Reply> {
    for (let attempt = 0; ; attempt++) {
      const res = await call();
      if (!retry || res.status !== 429 || attempt >= 20) return res;
      await new Promise((r) => setTimeout(r, Math.min(5, res.retryAfter ?? 1) * 1000));
    }
  }

  private async send(method: string, path: string, headers: Record<string, string>, body?: string): Promise<Reply & { retryAfter?: number }> {
    let res;
    try {
      res = await httpRequest(this.baseUrl + path, { method, headers, body });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code && DROPPED.has(code)) return { status: 0, body: undefined, text: `connection closed without an answer (${code})`, dropped: true };
      throw error;
    }
    const retryAfter = Number(res.headers['retry-after'] ?? '') || undefined;
    const text = res.text;
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.status, body: parsed, text, retryAfter };
  }
}
