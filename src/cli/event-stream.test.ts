import { describe, expect, it } from 'vitest';
import { readEventStream } from './event-stream';

async function* chunks(...parts: string[]): AsyncGenerator<Uint8Array> {
  for (const part of parts) yield new TextEncoder().encode(part);
}

async function all(parts: string[]) {
  const out = [];
  for await (const e of readEventStream(chunks(...parts))) out.push(e);
  return out;
}

describe('readEventStream (text/event-stream)', () => {
  it('gives each frame once it is complete, whatever the chunk boundaries', async () => {
    const text = 'retry: 2000\n\n: keep-alive\n\nevent: ready\ndata: {"a":1}\n\ndata: plain\n\nevent: x\ndata: one\ndata:two\n\n';
    const expected = [
      { event: 'ready', data: '{"a":1}' },
      { event: 'message', data: 'plain' },
      { event: 'x', data: 'one\ntwo' },
    ];
    expect(await all([text])).toEqual(expected);
    expect(await all(text.split(''))).toEqual(expected);
    expect(await all([text.replace(/\n/g, '\r\n')])).toEqual(expected);
  });

  it('decodes UTF-8 split across chunks, and drops a frame cut off by the end', async () => {
    const bytes = new TextEncoder().encode('data: Zoë ✓\n\ndata: cut');
    async function* split() {
      for (const b of bytes) yield Uint8Array.of(b);
    }
    const out = [];
    for await (const e of readEventStream(split())) out.push(e);
    expect(out).toEqual([{ event: 'message', data: 'Zoë ✓' }]);
  });
});
