import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { isIpOrCidr, IP_OR_CIDR_PATTERN } from '../auth/ip';
import { parseDuration } from '../clock/duration';
import { DURATION_PATTERN, MAX_ADVANCE_MS } from '../http/control/clock.routes';
import { CustomerSchema, DOB_PATTERN } from '../orders/model';
import { seeded } from '../../test/support/property';
import { EMAIL_PATTERN, HTTP_URL_PATTERN, TEXT_PATTERN, TRIMMED_PATTERN } from './documented';

// What the OpenAPI document allows, the server accepts (CONTRACT §19): each pattern the document
// states beside a zod check is tested here against that check, on strings made to match it.
const matching = (pattern: string) => fc.stringMatching(new RegExp(pattern, 'u'));
const accepts = (schema: z.ZodType) => (value: string) => schema.safeParse(value).success;

describe("the document's patterns (shared/documented)", () => {
  it('TRIMMED_PATTERN is exactly the text trim() leaves as it is, with something in it', () => {
    const re = new RegExp(TRIMMED_PATTERN);
    for (let code = 0; code <= 0xffff; code++) {
      if (code >= 0xd800 && code <= 0xdfff) continue;
      const c = String.fromCharCode(code);
      expect(re.test(c), `U+${code.toString(16)}`).toBe(c.trim() === c);
      expect(re.test(`a${c}b`), `U+${code.toString(16)} inside`).toBe(true);
    }
    expect(re.test('')).toBe(false);
    expect(re.test('😀')).toBe(false); // outside the Basic Multilingual Plane: lengths would differ
    fc.assert(
      fc.property(
        matching(TRIMMED_PATTERN),
        (s) => s.trim() === s && s.length > 0 && z.string().trim().min(1).max(s.length).safeParse(s).success,
      ),
      seeded({ numRuns: 300 }),
    );
  });

  it('TEXT_PATTERN counts as zod counts: a string it allows is as long in code points as in UTF-16 units', () => {
    fc.assert(
      fc.property(matching(TEXT_PATTERN), (s) => [...s].length === s.length),
      seeded({ numRuns: 300 }),
    );
    expect(new RegExp(TEXT_PATTERN, 'u').test('a😀')).toBe(false);
  });

  it('EMAIL_PATTERN allows only what z.email() accepts', () => {
    fc.assert(fc.property(matching(EMAIL_PATTERN), accepts(z.email())), seeded({ numRuns: 500 }));
    fc.assert(
      fc.property(fc.emailAddress(), (e) => !new RegExp(EMAIL_PATTERN).test(e) || z.email().safeParse(e).success),
      seeded({ numRuns: 500 }),
    );
  });

  it('HTTP_URL_PATTERN allows only what the partner webhook_url check accepts', () => {
    const url = z.url({ protocol: /^https?$/ });
    fc.assert(fc.property(matching(HTTP_URL_PATTERN), accepts(url)), seeded({ numRuns: 1000 }));
    const re = new RegExp(HTTP_URL_PATTERN);
    for (const ok of [
      'http://localhost:4000/hooks',
      'https://hooks.partner.example/ramp?x=1',
      'http://127.0.0.1:8080',
      'http://[::1]:3000/',
    ])
      expect(re.test(ok), ok).toBe(true);
    for (const no of ['ftp://x.example', 'http://999.1.1.1', 'http://a.0x', 'http://xn--zz', 'http://host:99999'])
      expect(re.test(no), no).toBe(false);
  });

  it('DOB_PATTERN is exactly the dates the customer dob check accepts', () => {
    const re = new RegExp(DOB_PATTERN);
    const dob = CustomerSchema.shape.dob;
    const pad = (n: number, w: number) => String(n).padStart(w, '0');
    const years = [...Array.from({ length: 260 }, (_, i) => 1880 + i), 2400, 3000, 3600, 9996, 9999];
    for (const y of years) {
      for (let m = 0; m <= 13; m++) {
        for (let d = 0; d <= 32; d++) {
          const text = `${pad(d, 2)}-${pad(m, 2)}-${pad(y, 4)}`;
          expect(re.test(text), text).toBe(dob.safeParse(text).success);
        }
      }
    }
  });

  it('DURATION_PATTERN allows only durations the clock advance accepts (at most 10 years)', () => {
    fc.assert(
      fc.property(matching(DURATION_PATTERN), (d) => {
        const ms = parseDuration(d);
        return ms !== undefined && ms <= MAX_ADVANCE_MS;
      }),
      seeded({ numRuns: 1000 }),
    );
    for (const ok of ['90s', '5m', '2h', '1d', '1h30m', '500ms', '2999d']) expect(new RegExp(DURATION_PATTERN).test(ok), ok).toBe(true);
  });

  it('IP_OR_CIDR_PATTERN allows only what the IP whitelist accepts', () => {
    fc.assert(fc.property(matching(IP_OR_CIDR_PATTERN), isIpOrCidr), seeded({ numRuns: 1000 }));
    fc.assert(
      fc.property(fc.oneof(fc.ipV4(), fc.ipV6()), (ip) => new RegExp(IP_OR_CIDR_PATTERN).test(ip) === isIpOrCidr(ip)),
      seeded({ numRuns: 500 }),
    );
  });
});
