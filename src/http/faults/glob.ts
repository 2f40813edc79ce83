/**
 * Fault path globs (CONTRACT §12, §9): matched by simulating a small non-deterministic automaton
 * over the path's characters, never by a backtracking regular expression, so a match takes at
 * most (states × (path length + 1)) steps whatever the glob, and states ≤ glob length + 1.
 *
 * The semantics are exactly those of the regular expression the sandbox used before (kept as the
 * reference in glob.test.ts):
 * - trailing `/` of the glob are ignored, and so is whatever precedes its first `/` (a validated
 *   glob starts with `/v1`, so nothing);
 * - a segment that is exactly `**` matches zero or more non-empty path segments;
 * - any other segment matches one path segment, where each `*` matches any run of characters
 *   other than `/`, possibly empty (so `/v1/orders/*` matches `/v1/orders/`, and `/v1/net*`
 *   matches `/v1/networks`); every other character is literal and case-sensitive (per UTF-16 code
 *   unit), an empty segment (`//`) included;
 * - the whole path must match, except that it may end with one extra `/`;
 * - the path is taken as given: the caller strips the query (`?…`) first.
 */

/** The longest path glob accepted anywhere (`POST /sandbox/faults`, a restored state). */
export const MAX_GLOB_LENGTH = 300;

/** Counts the steps a match takes (one per automaton state entered at a position of the path). */
export interface GlobStepCounter {
  steps: number;
}

/** A glob compiled once into automaton states; `matches` can be called any number of times. */
export interface CompiledGlob {
  readonly glob: string;
  /** How many automaton states the glob compiled to (at most its length + 1). */
  readonly states: number;
  /** Whether `path` (without its query) matches, adding the steps taken to `counter` when given. */
  matches(path: string, counter?: GlobStepCounter): boolean;
}

// State kinds. Epsilon moves only ever go forward, so one state's closure is a simple chain.
const LIT = 0; // the character code[s] → s+1
const STAR = 1; // a non-`/` → s (loop); ε → s+1
const SEGS = 2; // `**` entry: `/` → s+1; ε → s+3 (no more segments)
const SEG_FIRST = 3; // the first character of a `**` segment: a non-`/` → s+1
const SEG_MORE = 4; // inside a `**` segment: a non-`/` → s; `/` → s-1 (the next one); ε → s+1
const FINAL = 5; // the whole glob matched: accepted at the end of the path, or before one last `/`
const SLASH = 47;

/** Compiles a path glob (`*` one segment or part of one, `**` any number of segments). */
export function compileGlob(glob: string): CompiledGlob {
  let end = glob.length;
  while (end > 0 && glob.charCodeAt(end - 1) === SLASH) end--;
  const parts = glob.slice(0, end).split('/').slice(1);
  const kinds: number[] = [];
  const codes: number[] = [];
  const push = (kind: number, code = 0) => {
    kinds.push(kind);
    codes.push(code);
  };
  for (const part of parts) {
    if (part === '**') {
      push(SEGS);
      push(SEG_FIRST);
      push(SEG_MORE);
      continue;
    }
    push(LIT, SLASH);
    for (let i = 0; i < part.length; i++) {
      const c = part.charCodeAt(i);
      if (c !== 42 /* * */) push(LIT, c);
      else if (kinds[kinds.length - 1] !== STAR) push(STAR); // `**` inside a segment is one `*`
    }
  }
  push(FINAL);
  const kind = Uint8Array.from(kinds);
  const code = Uint16Array.from(codes);
  const n = kind.length;
  const final = n - 1;
  // Scratch space reused by every match (matching is synchronous): the states active at the
  // current and the next position, and the generation in which each state was last entered.
  let current = new Int32Array(n);
  let next = new Int32Array(n);
  const seen = new Int32Array(n);
  let generation = 0;

  return {
    glob,
    states: n,
    matches(path: string, counter?: GlobStepCounter): boolean {
      if (generation > 0x3fff_ffff - path.length - 2) {
        seen.fill(0);
        generation = 0;
      }
      let steps = 0;
      let size = 0;
      // Enters state s and the states its ε-moves reach, each at most once per position.
      const enter = (s: number, into: Int32Array): void => {
        for (;;) {
          if (seen[s] === generation) return;
          seen[s] = generation;
          into[size++] = s;
          steps++;
          const k = kind[s];
          if (k === STAR || k === SEG_MORE) s += 1;
          else if (k === SEGS) s += 3;
          else return;
        }
      };
      const done = (matched: boolean): boolean => {
        if (counter) counter.steps += steps;
        return matched;
      };
      generation++;
      enter(0, current);
      let count = size;
      const last = path.length - 1;
      for (let i = 0; i <= last; i++) {
        if (count === 0) return done(false);
        const c = path.charCodeAt(i);
        if (i === last && c === SLASH && seen[final] === generation) return done(true); // the one optional trailing `/`
        generation++;
        size = 0;
        for (let j = 0; j < count; j++) {
          const s = current[j]!;
          switch (kind[s]) {
            case LIT:
              if (c === code[s]) enter(s + 1, next);
              break;
            case STAR:
              if (c !== SLASH) enter(s, next);
              break;
            case SEGS:
              if (c === SLASH) enter(s + 1, next);
              break;
            case SEG_FIRST:
              if (c !== SLASH) enter(s + 1, next);
              break;
            case SEG_MORE:
              enter(c === SLASH ? s - 1 : s, next);
              break;
          }
        }
        const swap = current;
        current = next;
        next = swap;
        count = size;
      }
      return done(seen[final] === generation);
    },
  };
}

/** Whether `path` matches `glob` (compiles it each time: keep a `compileGlob` for repeated use). */
export function globMatches(glob: string, path: string, counter?: GlobStepCounter): boolean {
  return compileGlob(glob).matches(path, counter);
}
