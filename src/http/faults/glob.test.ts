import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { seeded } from '../../../test/support/property';
import { compileGlob, globMatches, MAX_GLOB_LENGTH, type GlobStepCounter } from './glob';

/**
 * The reference: the backtracking regular expression fault globs were matched with before
 * (copied unchanged from fault.store.ts). Exponential on `/v1/orders/*A*A*…*B`, so it is only
 * ever run here, on small inputs.
 */
function globToRegExp(glob: string): RegExp {
  const parts = glob.replace(/\/+$/, '').split('/');
  let re = '';
  for (const part of parts.slice(1)) {
    if (part === '**') re += '(?:/[^/]+)*';
    else
      re += `/${part
        .split('*')
        .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
        .join('[^/]*')}`;
  }
  return new RegExp(`^${re}/?$`);
}

/** The step bound the matcher promises: (glob length + 1) × (path length + 1). */
const bound = (glob: string, path: string) => (glob.length + 1) * (path.length + 1);

const counted = (glob: string, path: string) => {
  const counter: GlobStepCounter = { steps: 0 };
  const matched = globMatches(glob, path, counter);
  return { matched, steps: counter.steps };
};

// Glob segments: literal, `*` anywhere in a segment, `**`, empty segments, regexp metacharacters.
const GLOB_SEGMENTS = [
  '**',
  '*',
  '***',
  '**a',
  'a',
  'b',
  'ab',
  'a*',
  '*a',
  'a*b',
  '*a*',
  'a**b',
  '',
  'v1',
  '.',
  '?',
  '(',
  '[',
  '\\',
  '$',
  '^',
  '|',
  '+',
  '{1}',
  'é',
];
const PATH_PIECES = ['a', 'b', 'ab', 'ba', 'aa', '', 'v1', '.', '?', '(', '*', 'é', 'a/b', '/'];

const segmentGlob = fc
  .tuple(
    fc.constantFrom('', '', '', 'x', 'v1'), // what precedes the first `/` (the old regexp ignores it)
    fc.array(fc.constantFrom(...GLOB_SEGMENTS), { maxLength: 6 }),
    fc.constantFrom('', '', '/', '//'),
  )
  .map(([head, segments, tail]) => ({ glob: `${head}/${segments.join('/')}${tail}`, segments }));

/** A path made from a glob, so that matches are common: each `*` and `**` filled at random. */
const pathFor = (segments: string[]) =>
  fc
    .tuple(
      ...segments.map((segment) =>
        segment === '**'
          ? fc.array(fc.constantFrom('a', 'b', 'ab', '', 'a/b'), { maxLength: 3 }).map((xs) => xs.map((x) => `/${x}`).join(''))
          : fc
              .array(fc.constantFrom(...PATH_PIECES), {
                minLength: segment.split('*').length - 1,
                maxLength: segment.split('*').length - 1,
              })
              .map((fills) => {
                const pieces = segment.split('*');
                return `/${pieces.map((p, i) => (i === 0 ? p : fills[i - 1] + p)).join('')}`;
              }),
      ),
      fc.constantFrom('', '', '/', '//', 'a'),
    )
    .map(([...all]) => all.join(''));

const randomString = (units: string[], maxLength: number) => fc.string({ unit: fc.constantFrom(...units), maxLength });

const cases = fc.oneof(
  // a glob and a path made from it (mostly matches, sometimes near misses)
  segmentGlob.chain(({ glob, segments }) => fc.tuple(fc.constant(glob), pathFor(segments))),
  // a glob and an unrelated path of the same pieces
  fc.tuple(
    segmentGlob.map((g) => g.glob),
    fc.array(fc.constantFrom(...PATH_PIECES), { maxLength: 6 }).map((xs) => xs.map((x) => `/${x}`).join('')),
  ),
  // anything over a small alphabet, `/` and `*` included
  fc.tuple(randomString(['/', '*', 'a', 'b', '.'], 12), randomString(['/', 'a', 'b', '.', '*'], 14)),
);

describe('fault path globs in linear time (CONTRACT §9, §12)', () => {
  it('agrees with the old regular expression on generated globs and paths, within the step bound', () => {
    let matches = 0;
    let runs = 0;
    fc.assert(
      fc.property(cases, ([glob, path]) => {
        const { matched, steps } = counted(glob, path);
        expect(matched, `${JSON.stringify(glob)} vs ${JSON.stringify(path)}`).toBe(globToRegExp(glob).test(path));
        expect(steps).toBeLessThanOrEqual(bound(glob, path));
        expect(compileGlob(glob).states).toBeLessThanOrEqual(glob.length + 1);
        runs++;
        if (matched) matches++;
      }),
      seeded({ numRuns: 3000 }),
    );
    // The comparison is not vacuous: both answers are common.
    expect(matches).toBeGreaterThan(runs / 10);
    expect(matches).toBeLessThan(runs - runs / 10);
  });

  it('keeps the semantics the examples pin down', () => {
    const table: Array<[string, string, boolean]> = [
      ['/v1/orders/*', '/v1/orders/ORD1', true],
      ['/v1/orders/*', '/v1/orders/', true], // `*` may be empty
      ['/v1/orders/*', '/v1/orders//', true], // … and the one optional trailing `/`
      ['/v1/orders/*', '/v1/orders', false],
      ['/v1/orders/*', '/v1/orders/ORD1/cancel', false],
      ['/v1/**', '/v1', true],
      ['/v1/**', '/v1/', true],
      ['/v1/**', '/v1/a/b/c/', true],
      ['/v1/**', '/v1//a', false], // `**` segments are not empty
      ['/v1/**/cancel', '/v1/cancel', true],
      ['/v1/**/cancel', '/v1/orders/X/cancel', true],
      ['/v1/orders/', '/v1/orders', true], // the glob's trailing `/` is ignored
      ['/v1/orders', '/v1/orders/', true],
      ['/v1/orders', '/v1/orders//', false],
      ['/v1/net*', '/v1/networks', true],
      ['/v1/net*', '/v1/Networks', false], // case-sensitive
      ['/v1/**x', '/v1/ax', true], // `**` inside a segment is a `*`
      ['/v1/a.b', '/v1/axb', false], // literal, not a regexp
      ['/v1/orders', '/v1/orders?x=1', false], // the caller strips the query
      ['', '/', true],
      ['', '', true],
    ];
    for (const [glob, path, expected] of table) {
      expect(globMatches(glob, path), `${glob} vs ${path}`).toBe(expected);
      expect(globToRegExp(glob).test(path), `reference: ${glob} vs ${path}`).toBe(expected);
    }
  });

  it('matches a 20-star glob against a 4,000-character segment within (glob+1)×(path+1) steps', () => {
    const glob = `/v1/orders/${'*A'.repeat(19)}*B`;
    expect(glob.split('*')).toHaveLength(21);
    for (const path of [`/v1/orders/${'A'.repeat(4000)}`, `/v1/orders/${'A'.repeat(4000)}B`, `/v1/orders/${'A'.repeat(4000)}/`]) {
      const { matched, steps } = counted(glob, path);
      expect(matched).toBe(path.endsWith('B'));
      expect(steps).toBeLessThanOrEqual(bound(glob, path));
    }
  });

  it('matches many `**` against a long path within the bound', () => {
    const glob = `/v1${'/**'.repeat(60)}/x`;
    const long = `/v1${'/a'.repeat(2000)}`;
    for (const [path, expected] of [
      [`${long}/y`, false],
      [`${long}/x`, true],
      [`${long}/x/`, true],
    ] as const) {
      const { matched, steps } = counted(glob, path);
      expect(matched).toBe(expected);
      expect(steps).toBeLessThanOrEqual(bound(glob, path));
    }
  });

  it('matches the longest allowed glob of stars and `**` within the bound', () => {
    const globs = [`/v1/${'*a'.repeat(148)}`, `/v1/${'**/*a*/'.repeat(42)}`, `/v1/${'*'.repeat(MAX_GLOB_LENGTH - 4)}`];
    const paths = [`/v1/${'a'.repeat(4000)}b`, `/v1${'/aaa'.repeat(1000)}/b`, `/v1/${'a/'.repeat(2000)}`];
    for (const glob of globs) {
      expect(glob.length).toBeLessThanOrEqual(MAX_GLOB_LENGTH);
      for (const path of paths) {
        const { steps } = counted(glob, path);
        expect(steps).toBeLessThanOrEqual(bound(glob, path));
      }
    }
  });

  it('reuses a compiled glob across matches', () => {
    const compiled = compileGlob('/v1/orders/*/cancel');
    for (let i = 0; i < 1000; i++) {
      expect(compiled.matches(`/v1/orders/ORD${i}/cancel`)).toBe(true);
      expect(compiled.matches(`/v1/orders/ORD${i}`)).toBe(false);
    }
  });
});
