import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readEventStream } from '../../src/cli/event-stream';
import type { RawRecord } from '../../src/http/inspector/request-log.record';
import { capturedLogger } from '../support/log-sink';
import { startTestServer, type TestServer } from '../support/server';

// Issue item 8: an event stream whose reader never reads is cut off (a bounded buffer, then a
// disconnect with one log line), as `listen` already was; a reader that reads is never cut.
const TOKEN = 'streams-token';
const { logger, lines } = capturedLogger();
let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ adminToken: TOKEN, logger });
});
afterAll(() => s?.close());

const T0 = Date.UTC(2026, 0, 15, 12, 0, 0);
/** A recorded request as the inspector publishes it: a long path makes each event ~2.5 KB. */
const raw = (i: number): RawRecord => ({
  wallMs: T0,
  virtualMs: T0,
  method: 'GET',
  path: `/v1/orders/ORD${i}?pad=${'p'.repeat(2000)}`,
  status: 404,
  ms: 1,
  auth: 'secret',
  headers: {},
  clientId: 'ptr_a',
  environment: 'test',
});

/** A raw HTTP client of `path` that reads the answer's head, then stops reading (a paused socket). */
async function idleClient(path: string): Promise<{ socket: Socket; head: string }> {
  const socket = connect(Number(new URL(s.url).port), '127.0.0.1');
  await once(socket, 'connect');
  socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN}\r\n\r\n`);
  const [chunk] = (await once(socket, 'data')) as [Buffer];
  socket.pause();
  return { socket, head: chunk.toString('latin1') };
}

describe('event streams cut a reader that does not read (issue item 8)', () => {
  it('cuts a tail that never reads, with one log line, while a tail that reads keeps every event', async () => {
    const idle = await idleClient('/sandbox/tail?deliveries=false');
    expect(idle.head).toMatch(/^HTTP\/1\.1 200 /);
    const abort = new AbortController();
    const res = await fetch(`${s.url}/sandbox/tail?deliveries=false`, {
      headers: { authorization: `Bearer ${TOKEN}` },
      signal: abort.signal,
    });
    const events = readEventStream(res.body!);
    expect((await events.next()).value?.event).toBe('ready');
    const idleClosed = once(idle.socket, 'close');
    const from = lines.length;
    let sent = 0;
    let received = 0;
    const cut = () => lines.slice(from).some((l) => l.includes('event stream cut'));
    try {
      // Events keep coming; the reading tail takes each batch before the next (so it never lags
      // by more than one batch), while the idle one holds its socket's buffers full. Bounded: a
      // sandbox that never cuts fails here rather than running on.
      while (!cut() && sent < 20_000) {
        for (let i = 0; i < 20; i++) s.sandbox.bus.emit('request.recorded', { id: `req_${sent}`, raw: raw(sent++) });
        while (received < sent) {
          const { value } = await events.next();
          expect(value?.event).toBe('request');
          received++;
        }
      }
      const logged = lines
        .slice(from)
        .filter((l) => l.includes('event stream cut'))
        .map((l) => JSON.parse(l));
      expect(logged).toEqual([
        expect.objectContaining({
          level: 40,
          stream: 'tail',
          limit: 1024 * 1024,
          unread: expect.any(Number),
          peer: expect.stringMatching(/^127\.0\.0\.1:\d+$/),
        }),
      ]);
      expect(sent).toBeLessThan(20_000);
      // The idle client, once it reads again, finds its connection closed after what it was sent.
      idle.socket.resume();
      await idleClosed;
      // The reading tail is still there and still told.
      s.sandbox.bus.emit('request.recorded', { id: 'req_after', raw: raw(0) });
      const { value } = await events.next();
      expect(JSON.parse(value!.data)).toMatchObject({ type: 'request', id: 'req_after' });
    } finally {
      abort.abort();
      idle.socket.destroy();
    }
  });
});
