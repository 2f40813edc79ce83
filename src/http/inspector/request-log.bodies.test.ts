import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { seeded } from '../../../test/support/property';
import { BodyBytes } from './request-log.bodies';
import { RequestLog } from './request-log';
import type { RawRecord } from './request-log.record';

// Decision 024: the inspector's bodies are bytes outside the heap, read back exactly.

/** Any UTF-16 text, lone surrogates included (an excerpt cut inside a pair). */
const anyText = fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)), maxLength: 300 });

describe('BodyBytes', () => {
  it('reads back every text kept, exactly, through any writes, deletes and clears (seeded)', () => {
    const op = fc.oneof(
      {
        weight: 6,
        arbitrary: fc.record({ kind: fc.constant('set' as const), key: fc.nat(7), text: fc.option(anyText, { nil: undefined }) }),
      },
      { weight: 2, arbitrary: fc.record({ kind: fc.constant('delete' as const), key: fc.nat(7) }) },
      { weight: 1, arbitrary: fc.constant({ kind: 'clear' as const }) },
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        // Small chunks, so writes open, fill and let go of many.
        const bytes = new BodyBytes(64);
        const model = new Map<number, string>();
        for (const o of ops) {
          if (o.kind === 'set') {
            bytes.set(o.key, o.text);
            if (o.text) model.set(o.key, o.text);
            else model.delete(o.key);
          } else if (o.kind === 'delete') {
            bytes.delete(o.key);
            model.delete(o.key);
          } else {
            bytes.clear();
            model.clear();
          }
          for (let key = 0; key < 8; key++) expect(bytes.get(key)).toBe(model.get(key));
        }
      }),
      seeded({ numRuns: 500 }),
    );
  });

  it('keeps a text UTF-8 cannot carry (a lone surrogate) as it is', () => {
    const bytes = new BodyBytes();
    const cut = '{"name":"\u{1F600}'.slice(0, -1);
    bytes.set(0, cut);
    bytes.set(1, 'é \u{1F600} ok');
    expect(bytes.get(0)).toBe(cut);
    expect(bytes.get(1)).toBe('é \u{1F600} ok');
  });

  it('lets go of chunks as the ring writes over their bodies: a long run holds about what is kept', () => {
    const bytes = new BodyBytes(4096);
    const slots = 100;
    for (let i = 0; i < 200_000; i++) bytes.set(i % slots, `{"n":${i},"pad":"${'p'.repeat(200)}"}`);
    // 100 bodies of ~220 bytes: 6 chunks of 4 KiB at the least, one open and one spare beside them.
    expect(bytes.chunkBytes).toBeLessThanOrEqual(9 * 4096);
    expect(bytes.get(199_999 % slots)).toContain('"n":199999');
    bytes.clear();
    // Only the spare is kept.
    expect(bytes.chunkBytes).toBeLessThanOrEqual(4096);
    for (let key = 0; key < slots; key++) expect(bytes.get(key)).toBeUndefined();
  });

  it('takes a body larger than a chunk in a chunk of its own', () => {
    const bytes = new BodyBytes(16);
    bytes.set(0, 'a'.repeat(100));
    bytes.set(1, 'short');
    expect(bytes.get(0)).toBe('a'.repeat(100));
    expect(bytes.get(1)).toBe('short');
  });
});

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

function heapAfterGc(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

describe('RequestLog bodies off the heap (decision 024)', () => {
  it('keeps 2,000 recorded 4 KiB answers outside the JS heap, and answers them whole', () => {
    const log = new RequestLog(2_000);
    const raw = (i: number): RawRecord => ({
      wallMs: i,
      virtualMs: i,
      method: 'POST',
      path: '/v1/orders',
      status: 200,
      ms: 1,
      auth: 'secret',
      headers: {},
      requestBody: `{"n":${i}}`,
      responseBody: `{"n":${i},"data":"${String(i % 10).repeat(4_080)}"}`,
    });
    const before = heapAfterGc();
    for (let i = 0; i < 2_000; i++) log.recordRaw(raw(i));
    const grown = heapAfterGc() - before;
    // As strings on the heap these were 8 MiB (4 KiB each, promoted with every create it answered).
    expect(grown).toBeLessThan(2 * 1024 * 1024);
    const [latest] = log.list({ limit: 1 });
    expect(latest!.response_body).toBe(raw(1_999).responseBody);
    expect(latest!.request_body).toBe('{"n":1999}');
    expect(log.list({ q: '"n":1234,' }).map((e) => e.request_body)).toEqual(['{"n":1234}']);
  });
});

describe('BodyBytes, a text repeated', () => {
  it('keeps one string for a text equal to the last of its kind, and bytes for the rest', () => {
    const bytes = new BodyBytes(1024);
    const answer = `{"data":"${'x'.repeat(500)}"}`;
    bytes.set(1, answer);
    const used = bytes.chunkBytes;
    // Equal text from another object (a parser's fresh string): no new bytes.
    for (let key = 3; key < 40; key += 2) bytes.set(key, `{"data":"${'x'.repeat(500)}"}`);
    expect(bytes.chunkBytes).toBe(used);
    for (let key = 1; key < 40; key += 2) expect(bytes.get(key)).toBe(answer);
    // A request's body is another kind: not matched against answers.
    bytes.set(0, answer);
    expect(bytes.get(0)).toBe(answer);
  });
});
