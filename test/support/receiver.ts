/**
 * A real webhook receiver on 127.0.0.1:0 for tests, with an independent signature check
 * written straight from spec §6.4 (node:crypto only, nothing from src/).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface Received {
  path: string;
  headers: IncomingMessage['headers'];
  rawBody: string;
  body: any;
  at: number;
}

export type Behaviour = 'ok' | '500' | 'hang' | 'reset' | 'slow';

export interface Receiver {
  url: string;
  received: Received[];
  /** Decides the answer to each request (default: 200). */
  behave(fn: (req: Received, index: number) => Behaviour): void;
  close(): Promise<void>;
}

export async function startReceiver(path = '/hooks/ramp?src=sandbox'): Promise<Receiver> {
  const received: Received[] = [];
  let decide: (req: Received, index: number) => Behaviour = () => 'ok';
  const sockets = new Set<Socket>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      let body: any;
      try {
        body = JSON.parse(rawBody);
      } catch {
        body = undefined;
      }
      const r: Received = { path: req.url ?? '', headers: req.headers, rawBody, body, at: Date.now() };
      received.push(r);
      const behaviour = decide(r, received.length - 1);
      if (behaviour === 'hang') return;
      if (behaviour === 'reset') {
        req.socket.destroy();
        return;
      }
      const answer = () => {
        res.statusCode = behaviour === '500' ? 500 : 200;
        res.end(behaviour === '500' ? 'receiver error' : 'ok');
      };
      if (behaviour === 'slow') setTimeout(answer, 50);
      else answer();
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    received,
    behave: (fn) => {
      decide = fn;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** spec §6.4: sha256= + hex HMAC-SHA256 of `clientId|timestamp|POST|path|rawBody`, keyed with enc_*. */
export function verifies(r: Received, clientId: string, encryptionKey: string): boolean {
  const ts = String(r.headers['svc-timestamp'] ?? '');
  const expected = `sha256=${createHmac('sha256', encryptionKey).update(`${clientId}|${ts}|POST|${r.path}|${r.rawBody}`).digest('hex')}`;
  const given = String(r.headers['svc-signature'] ?? '');
  return given.length === expected.length && timingSafeEqual(Buffer.from(given), Buffer.from(expected));
}

/** A URL on 127.0.0.1 where nothing listens. */
export async function closedUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/hooks`;
}
