import { describe, expect, it } from 'vitest';
import { redrawsLines, useColour } from './output';

// What the terminal verbs decide from where they write and the environment (no-color.org, TERM=dumb, CI).
const tty = { isTTY: true } as NodeJS.WriteStream;
const pipe = { isTTY: false } as unknown as NodeJS.WriteStream;

describe('useColour', () => {
  it.each([
    [tty, {}, true],
    [pipe, {}, false],
    [tty, { NO_COLOR: '1' }, false],
    [tty, { TERM: 'dumb' }, false],
    [tty, { TERM: 'xterm-256color' }, true],
    [pipe, { FORCE_COLOR: '1' }, true],
    [tty, { TERM: 'dumb', FORCE_COLOR: '1' }, true],
  ] as const)('%o with %o: %s', (stream, env, expected) => {
    expect(useColour(stream, env)).toBe(expected);
  });
});

describe('redrawsLines', () => {
  it.each([
    [tty, {}, true],
    [pipe, {}, false],
    [tty, { CI: 'true' }, false],
    [tty, { TERM: 'dumb' }, false],
  ] as const)('%o with %o: %s', (stream, env, expected) => {
    expect(redrawsLines(stream, env)).toBe(expected);
  });
});
