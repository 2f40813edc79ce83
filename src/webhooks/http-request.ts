import http, { type IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import { cutText } from '../shared/excerpt';

export interface HttpReply {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

export interface HttpRequestOptions {
  method: string;
  headers?: Record<string, string>;
  body?: string;
  /** Whole-request deadline, wall ms; rejects with an error named TimeoutError. */
  timeoutMs?: number;
  /** Keep at most this much of the response body (default: all). */
  maxBodyChars?: number;
}

const agents = {
  'http:': new http.Agent({ keepAlive: true }),
  'https:': new https.Agent({ keepAlive: true }),
};

/**
 * One HTTP request with node:http and keep-alive agents. Chosen over the global fetch, which
 * costs three to four times the CPU per request in Node 20 (bench: webhook delivery and the
 * scenario runner are both request-bound). No redirects are followed.
 */
export function httpRequest(url: string | URL, options: HttpRequestOptions): Promise<HttpReply> {
  const target = typeof url === 'string' ? new URL(url) : url;
  const transport = target.protocol === 'https:' ? https : target.protocol === 'http:' ? http : undefined;
  if (!transport) return Promise.reject(new Error(`unsupported protocol ${target.protocol}`));
  return new Promise<HttpReply>((resolve, reject) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let settled = false;
    /** Settles once: whichever of the answer, an error, the deadline or the close comes first. */
    const settle = (outcome: { reply: HttpReply } | { error: Error }) => {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      if ('reply' in outcome) resolve(outcome.reply);
      else reject(outcome.error);
    };
    const headers: Record<string, string> = { ...options.headers };
    if (options.body !== undefined) headers['content-length'] = String(Buffer.byteLength(options.body));
    const req = transport.request(
      target,
      { method: options.method, headers, agent: agents[target.protocol as 'http:' | 'https:'] },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          if (options.maxBodyChars === undefined || text.length < options.maxBodyChars) text += chunk;
        });
        res.on('end', () =>
          settle({
            reply: {
              status: res.statusCode ?? 0,
              headers: res.headers,
              text: options.maxBodyChars === undefined ? text : cutText(text, options.maxBodyChars),
            },
          }),
        );
        res.on('error', (error) => settle({ error }));
      },
    );
    // A 101 Switching Protocols we never asked for: Node hands the socket over and emits neither
    // a response nor an error, so the request never ended (and its timeout destroyed nothing).
    // It is the receiver's answer, not a 2xx: taken as such, the connection closed.
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      settle({ reply: { status: res.statusCode ?? 101, headers: res.headers, text: '' } });
    });
    req.on('error', (error) => settle({ error }));
    // Anything else that ends the request without an answer still ends it: after the events the
    // close comes with (an error, a response's end), which say more, have had their turn.
    req.on('close', () => setImmediate(() => settle({ error: new Error('the connection closed without an answer') })));
    if (options.timeoutMs !== undefined) {
      timer = setTimeout(() => {
        const error = new Error(`timed out after ${options.timeoutMs} ms`);
        error.name = 'TimeoutError';
        settle({ error });
        req.destroy(error);
      }, options.timeoutMs);
    }
    req.end(options.body);
  });
}
