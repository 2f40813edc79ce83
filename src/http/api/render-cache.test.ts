import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ok } from '../../shared/envelope';
import { envelopeHead, renderedOnce, sharedEnvelope } from './render-cache';
import { seeded } from '../../../test/support/property';

describe('sharedEnvelope', () => {
  it('answers what a fresh render of the envelope answers, through any sequence of data (seeded)', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 40 }),
        fc.array(fc.jsonValue({ maxDepth: 3 }), { minLength: 1, maxLength: 4 }),
        fc.array(fc.nat(), { maxLength: 30 }),
        (message, pool, picks) => {
          const envelope = sharedEnvelope(message);
          // data drawn from a small pool: the same data again, and back to data seen before
          for (const pick of picks) {
            const data = pool[pick % pool.length];
            const json = JSON.stringify(data);
            expect(envelope(json)).toBe(JSON.stringify(ok(message, JSON.parse(json))));
            // the same text in another string is the same data
            expect(envelope(JSON.stringify(JSON.parse(json)))).toBe(JSON.stringify(ok(message, JSON.parse(json))));
          }
        },
      ),
      seeded({ numRuns: 1_000 }),
    );
  });

  it('starts with the envelope head that a streamed answer starts with', () => {
    const message = 'State retrieved "quoted" ✓';
    expect(sharedEnvelope(message)('[1]').startsWith(envelopeHead(message))).toBe(true);
    expect(JSON.parse(`${envelopeHead(message)}{"a":1}}`)).toEqual(ok(message, { a: 1 }));
  });
});

describe('renderedOnce', () => {
  it('serialises each key once and answers that JSON from then on', () => {
    const rendered = renderedOnce();
    let builds = 0;
    const networks = () => {
      builds++;
      return [{ identifier: 'base-sepolia', chain_id: 84532 }];
    };
    const first = rendered('test|networks', networks);
    expect(first).toBe(JSON.stringify(networks()));
    builds = 0;
    expect(rendered('test|networks', networks)).toBe(first);
    expect(builds).toBe(0);
    expect(rendered('live|networks', () => [])).toBe('[]');
  });
});
