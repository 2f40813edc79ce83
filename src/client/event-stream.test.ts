import { describe, expect, it } from 'vitest';
import { readEventStream, type ServerSentEvent } from './event-stream';

/** A body delivered in exactly these chunks. */
function body(...chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

async function read(stream: ReadableStream<Uint8Array>): Promise<ServerSentEvent[]> {
  const events: ServerSentEvent[] = [];
  for await (const e of readEventStream(stream)) events.push(e);
  return events;
}

describe('readEventStream', () => {
  it('reads named and unnamed events, joins data lines and skips comments', async () => {
    const events = await read(body('event: ready\ndata: {"a":1}\n\n: keep-alive\n\ndata: one\ndata: two\n\nretry: 10\nevent: end\ndata:x\n\n'));
    expect(events).toEqual([
      { event: 'ready', data: '{"a":1}' },
      { event: 'message', data: 'one\ntwo' },
      { event: 'end', data: 'x' },
    ]);
  });

  it('reads the same events whatever the chunks and line ends (LF, CRLF split across chunks, CR)', async () => {
    const text = 'event: attempt\r\ndata: {"id":"dlv_1.1","body":"é ü"}\r\n\r\nevent: end\rdata: bye\r\r';
    const whole = await read(body(text));
    expect(whole).toEqual([
      { event: 'attempt', data: '{"id":"dlv_1.1","body":"é ü"}' },
      { event: 'end', data: 'bye' },
    ]);
    // Every split point, including inside a CRLF and inside a multibyte character.
    const bytes = new TextEncoder().encode(text);
    for (let i = 1; i < bytes.length; i++) {
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(bytes.slice(0, i));
          controller.enqueue(bytes.slice(i));
          controller.close();
        },
      });
      expect(await read(stream), `split at ${i}`).toEqual(whole);
    }
  });

  it('yields nothing for an event the stream ended before finishing', async () => {
    expect(await read(body('event: attempt\ndata: {"id"'))).toEqual([]);
  });

  it('cancels the body when the reader stops early', async () => {
    let cancelled = false;
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('data: 1\n\ndata: 2\n\n'));
      },
      cancel() {
        cancelled = true;
      },
    });
    for await (const e of readEventStream(stream)) {
      expect(e.data).toBe('1');
      break;
    }
    expect(cancelled).toBe(true);
  });
});
