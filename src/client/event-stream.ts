/** One server-sent event: its type (`message` when unnamed) and its data lines joined with `\n`. */
export interface ServerSentEvent {
  event: string;
  data: string;
}

/** A line longer than this (bytes, about) is no event stream the sandbox sends: the read fails. */
const MAX_LINE = 16 << 20;

/**
 * Reads a `text/event-stream` body (HTML's server-sent events format: `event:` and `data:`
 * fields, LF, CRLF or CR line ends, comments and other fields ignored) one event at a time,
 * until the body ends. Breaking out of the loop cancels the body.
 * @example
 * const res = await fetch(`${url}/sandbox/events`, { headers: { authorization: `Bearer ${token}` } });
 * for await (const { event, data } of readEventStream(res.body!)) console.log(event, JSON.parse(data));
 */
export async function* readEventStream(body: ReadableStream<Uint8Array>): AsyncGenerator<ServerSentEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let event = '';
  let data: string[] = [];
  try {
    for (;;) {
      const { value, done } = await reader.read();
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
      let start = 0;
      for (;;) {
        const end = lineEnd(buffer, start, done);
        if (end < 0) break;
        const line = buffer.slice(start, end);
        start = end + (buffer[end] === '\r' && buffer[end + 1] === '\n' ? 2 : 1);
        if (line === '') {
          if (data.length > 0) yield { event: event || 'message', data: data.join('\n') };
          event = '';
          data = [];
          continue;
        }
        if (line.startsWith(':')) continue; // a comment (keep-alive)
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const text = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'event') event = text;
        else if (field === 'data') data.push(text);
      }
      if (done) return;
      buffer = buffer.slice(start);
      if (buffer.length > MAX_LINE) throw new Error(`event stream line over ${MAX_LINE} characters`);
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

/** Where the line starting at `from` ends (its CR or LF), or -1 when it has not ended yet. */
function lineEnd(text: string, from: number, last: boolean): number {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) return i;
    // A CR last in the buffer may be the first half of a CRLF: wait for what follows, if anything does.
    if (c === 13) return i + 1 < text.length || last ? i : -1;
  }
  return -1;
}
