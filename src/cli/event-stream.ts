/** One server-sent event: its name (`message` when the frame names none) and its data lines joined. */
export interface ServerSentEvent {
  event: string;
  data: string;
}

/**
 * The server-sent events of a response body, as they arrive (the text/event-stream format:
 * frames end with a blank line; `event:` and `data:` fields, `:` comments ignored; CRLF or LF).
 * Ends when the body ends; a frame cut off by the end is not given.
 */
export async function* readEventStream(body: AsyncIterable<Uint8Array>): AsyncGenerator<ServerSentEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    let end: RegExpExecArray | null;
    while ((end = /\r?\n\r?\n/.exec(buffer)) !== null) {
      const frame = buffer.slice(0, end.index);
      buffer = buffer.slice(end.index + end[0].length);
      const parsed = parseFrame(frame);
      if (parsed) yield parsed;
    }
  }
}

function parseFrame(frame: string): ServerSentEvent | undefined {
  let event = 'message';
  const data: string[] = [];
  for (const line of frame.split(/\r?\n/)) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  }
  return data.length > 0 ? { event, data: data.join('\n') } : undefined;
}
