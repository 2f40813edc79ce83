import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';

/** What Node's HTTP parser reports with a request it refused (llhttp's `code` and `reason`). */
interface ParserError extends Error {
  code?: string;
  reason?: string;
}

/** Plain words for the parser's refusals a partner can cause. */
const REASONS: Record<string, string> = {
  HPE_HEADER_OVERFLOW: 'the request line and headers are larger than the server accepts (16 KB)',
  HPE_INVALID_CHUNK_SIZE: 'a chunk size of the chunked body is not hexadecimal',
  HPE_UNEXPECTED_CONTENT_LENGTH: 'Content-Length together with Transfer-Encoding: chunked',
  HPE_INVALID_CONTENT_LENGTH: 'Content-Length is invalid or sent twice',
  HPE_INVALID_METHOD: 'the request line does not start with a known method',
  HPE_INVALID_VERSION: 'the HTTP version is not supported',
  HPE_INVALID_HEADER_TOKEN: 'a header name has characters a header name cannot have',
  // llhttp reports a bad character in a header value under the same code, with its own reason
  HPE_INVALID_HEADER_VALUE: 'a header value has a character a header value cannot have (a control character other than a tab)',
  HPE_INVALID_URL: 'the request target is not a valid URL',
  HPE_INVALID_TRANSFER_ENCODING: 'Transfer-Encoding is invalid, or sent together with Content-Length',
};

/**
 * Node's `clientError` (CONTRACT §9): a request the parser refused still gets the JSON error
 * envelope, `E_BADREQUEST`, 431 when the headers are too large, and the connection closes.
 * A socket that can no longer be written to (reset, or an answer already under way) is closed.
 */
export function answerClientError(error: ParserError, socket: Duplex): void {
  const headersSent = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent;
  if (error.code === 'ECONNRESET' || !socket.writable || headersSent) {
    socket.destroy();
    return;
  }
  const code =
    error.code === 'HPE_INVALID_HEADER_TOKEN' && /header value/i.test(error.reason ?? '') ? 'HPE_INVALID_HEADER_VALUE' : (error.code ?? '');
  const status = code === 'HPE_HEADER_OVERFLOW' ? 431 : code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
  const why =
    REASONS[code] ?? (status === 408 ? 'the request was not received in time' : (error.reason ?? error.message).replace(/\.$/, ''));
  const body = JSON.stringify({ status: false, code: 'E_BADREQUEST', message: `Malformed HTTP request: ${why}` });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
  );
}
