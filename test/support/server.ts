import { createControlClient, type ControlBody, type ControlClient, type ControlData } from '../../src/client/control-client';
import type { SandboxOverrides } from '../../src/sandbox/sandbox';
import { startServer, type RunningSandbox } from '../../src/sandbox/server';
import { createResponseChecker, type ResponseChecker } from './openapi';
import { signedHeaders, type TestKeys } from './sign';

export const T0 = Date.UTC(2026, 0, 15, 12, 0, 0);

export interface Reply<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface Caller {
  clientId: string;
  keys: Record<'test' | 'live', TestKeys>;
}

export interface TestServer extends RunningSandbox {
  /** The response checker built from the server's own `GET /openapi.json`. */
  openapi(): Promise<ResponseChecker>;
  demo: Caller;
  /** A raw request. */
  request(method: string, path: string, init?: { headers?: Record<string, string>; body?: string }): Promise<Reply>;
  /** A request signed with the secret key of `env` (default test). */
  signed(
    method: string,
    path: string,
    body?: unknown,
    opts?: { as?: Caller; env?: 'test' | 'live'; headers?: Record<string, string> },
  ): Promise<Reply>;
  /** A request with the public key of `env` (no HMAC). */
  pub(method: string, path: string, opts?: { as?: Caller; env?: 'test' | 'live' }): Promise<Reply>;
  /** A raw control API call (any method, path, body and headers: for what a route refuses). */
  control(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Reply>;
  /**
   * The control API through the one control client, typed by operation (with the sandbox's admin
   * token): resolves with `data`, throws a SandboxError on an error envelope. Sent through
   * `request`, so every answer is checked against the OpenAPI document as well.
   */
  controlApi: ControlClient;
  /** Creates a partner through the control API. */
  createPartner(body?: ControlBody<'createPartner'>): Promise<Caller & { raw: ControlData<'createPartner'> }>;
}

/** The real app on an ephemeral 127.0.0.1 port, manual clock, quiet logs. */
export async function startTestServer(overrides: SandboxOverrides = {}): Promise<TestServer> {
  const running = await startServer({
    port: 0,
    host: '127.0.0.1',
    clockMode: 'manual',
    clockStart: T0,
    logLevel: 'silent',
    rateLimit: { capacity: 100_000, refillPerSecond: 100_000 },
    ...overrides,
  });
  const demoPartner = running.sandbox.demoPartner;
  const demo: Caller = {
    clientId: demoPartner.client_id,
    keys: { test: { ...demoPartner.keys.test }, live: { ...demoPartner.keys.live } },
  };
  const client = clientFor(running.url, demo, running.sandbox.config.adminToken);
  // The document is made at its first GET (once per process, then copied): made now, it never
  // holds the event loop in the middle of a test (a webhook attempt with a short timeout, say).
  (await client.openapi()).warm();
  return { ...running, ...client };
}

/** The test client (signed, control, … every response checked against OpenAPI) for any sandbox URL. */
export function clientFor(url: string, demo: Caller, adminToken?: string): Omit<TestServer, keyof RunningSandbox> {
  const running = { url };
  let checker: ResponseChecker | undefined;
  const openapi = async () => {
    if (!checker) {
      const res = await fetch(`${running.url}/openapi.json`);
      checker = createResponseChecker((await res.json()) as Parameters<typeof createResponseChecker>[0]);
    }
    return checker;
  };
  const request: TestServer['request'] = async (method, path, init = {}) => {
    // Redirects are checked as they are sent (GET / → the dashboard), not followed.
    const res = await fetch(running.url + path, { method, headers: init.headers, body: init.body, redirect: 'manual' });
    const text = await res.text();
    let body: any;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    // CONTRACT §10: every response any HTTP test receives must match the OpenAPI document.
    (await openapi()).check(method, path, res.status, res.headers.get('content-type'), text);
    return { status: res.status, headers: res.headers, body, text };
  };

  const controlApi = createControlClient({
    baseUrl: url,
    adminToken,
    fetch: async (target, init) => {
      const { pathname, search } = new URL(target);
      const res = await request(init.method, pathname + search, { headers: init.headers, body: init.body });
      return { status: res.status, text: async () => res.text };
    },
  });

  const server: Omit<TestServer, keyof RunningSandbox> = {
    openapi,
    demo,
    request,
    signed: (method, path, body, opts = {}) => {
      const who = opts.as ?? demo;
      const raw = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
      const headers = signedHeaders({ clientId: who.clientId, keys: who.keys[opts.env ?? 'test'], method, path, body: raw });
      return request(method, path, { headers: { ...headers, ...opts.headers }, body: raw });
    },
    pub: (method, path, opts = {}) => {
      const who = opts.as ?? demo;
      return request(method, path, {
        headers: { 'svc-client-id': who.clientId, authorization: `Bearer ${who.keys[opts.env ?? 'test'].public_key}` },
      });
    },
    control: (method, path, body, headers = {}) =>
      request(method, path, {
        headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    controlApi,
    createPartner: async (body = {}) => {
      const partner = await controlApi.createPartner({ body });
      return { clientId: partner.client_id, keys: partner.keys, raw: partner };
    },
  };
  return server;
}
