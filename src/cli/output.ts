/**
 * What the verbs share about their output: a reader that goes away (`| head`) ends the verb
 * quietly, and colour only on a terminal that wants it.
 */

/**
 * Makes a closed stdout (EPIPE: the reader of a pipe went away) call `onClosed` instead of
 * crashing with a stack trace: what follows is written to no one.
 */
export function onStdoutClosed(onClosed: () => void): void {
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') return onClosed();
    process.stderr.write(`ramp-sandbox: cannot write to standard output (${error.code ?? error.message})\n`);
    process.exit(1);
  });
}

/** ANSI colours on a terminal, none when piped, when NO_COLOR is set (no-color.org) or on a dumb terminal (`TERM=dumb`). */
export function useColour(stream: NodeJS.WriteStream = process.stdout, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '' && env.FORCE_COLOR !== '0') return true;
  return stream.isTTY === true && env.TERM !== 'dumb';
}

/** Lines redrawn in place (cursor moves): a terminal that has a cursor to move, outside CI. */
export function redrawsLines(stream: NodeJS.WriteStream = process.stdout, env: NodeJS.ProcessEnv = process.env): boolean {
  return stream.isTTY === true && env.CI !== 'true' && env.TERM !== 'dumb';
}

export type Paint = (text: string) => string;

/** The few colours the verbs use; each the identity when `on` is false. */
export function palette(on: boolean): { green: Paint; yellow: Paint; red: Paint; cyan: Paint; dim: Paint; bold: Paint } {
  const sgr = (open: number, close: number): Paint => (on ? (text) => `\x1b[${open}m${text}\x1b[${close}m` : (text) => text);
  return { green: sgr(32, 39), yellow: sgr(33, 39), red: sgr(31, 39), cyan: sgr(36, 39), dim: sgr(2, 22), bold: sgr(1, 22) };
}

/** `text` cut to `max` characters, a single line (control characters shown as spaces). */
export function oneLine(text: string, max = 300): string {
  const flat = text.replace(/[\x00-\x1f\x7f]+/g, ' ');
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
