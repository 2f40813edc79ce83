import { connect } from 'node:net';

/** Writes raw bytes on a new connection to `url` and resolves with everything the server answered. */
export function sendRaw(url: string, bytes: string): Promise<string> {
  const { port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), '127.0.0.1');
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (c: string) => (text += c));
    socket.on('error', () => resolve(text));
    socket.on('close', () => resolve(text));
    socket.setTimeout(5000, () => socket.destroy());
    socket.write(bytes, 'latin1', () => socket.end());
  });
}
