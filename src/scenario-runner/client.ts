import { signRequest, type KeySet } from '../auth';

export interface Reply<T = any> {
  status: number;
  body: T;
  text: string;
}

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

  async control<T = any>(method: string, path: string, body?: unknown): Promise<Reply<T>> {
    const headers: Record<string, string> = {};
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (this.adminToken) headers.authorization = `Bearer ${this.adminToken}`;
    return this.send(method, path, headers, body === undefined ? undefined : JSON.stringify(body));
  }

  async v1<T = any>(method: string, path: string, as: PartnerIdentity, env: 'test' | 'live', body?: unknown): Promise<Reply<T>> {
    const raw = body === undefined ? undefined : JSON.stringify(body);
    const keys = as.keys[env];
    const headers = signRequest({ method, path, body: raw, clientId: as.client_id, secretKey: keys.secret_key, encryptionKey: keys.encryption_key });
    return this.send(method, path, headers, raw);
  }

  async publicGet<T = any>(path: string, as: PartnerIdentity, env: 'test' | 'live'): Promise<Reply<T>> {
    return this.send('GET', path, { 'svc-client-id': as.client_id, authorization: `Bearer ${as.keys[env].public_key}` });
  }

  private async send(method: string, path: string, headers: Record<string, string>, body?: string): Promise<Reply> {
    const res = await fetch(this.baseUrl + path, { method, headers, body });
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.status, body: parsed, text };
  }
}
