import { describe, expect, it } from 'vitest';
import { Faker, en, en_GH, en_NG, en_ZA } from '@faker-js/faker';
import { VirtualClock } from '../clock';
import { hashSeed } from '../shared/ids';
import { createReferenceStore } from './reference.store';
import { DEFAULT_FIXTURES_DIR, loadFixtures } from '.';

describe('lookupAccount', () => {
  const fixtures = loadFixtures(DEFAULT_FIXTURES_DIR);
  const clock = new VirtualClock({ start: 0, mode: 'manual' });

  it("names the account as faker's default generator seeded per lookup does (same seed, same names as before)", () => {
    const locales = { NG: [en_NG, en], GH: [en_GH, en], ZA: [en_ZA, en] } as Record<string, (typeof en)[]>;
    for (const seed of [1, 2, 99]) {
      const store = createReferenceStore(fixtures, { seed, clock });
      for (const [fiat, institutions] of Object.entries(fixtures.institutions)) {
        for (const bank of institutions.slice(0, 3)) {
          for (const account of ['0123456789', '9876543210', '0241234567', `${seed}`.padStart(10, '5')]) {
            const faker = new Faker({ locale: locales[bank.country] ?? [en] });
            faker.seed(hashSeed(seed, bank.code, account));
            const expected = `${faker.person.firstName()} ${faker.person.lastName()}`.toUpperCase();
            expect(store.lookupAccount(bank.code, account).account_name, `${fiat} ${bank.code} ${account}`).toBe(expected);
          }
        }
      }
    }
  });

  it('answers a repeated lookup with the same name as the first, whatever came between', () => {
    const store = createReferenceStore(fixtures, { seed: 7, clock });
    const banks = Object.values(fixtures.institutions).flat().slice(0, 4);
    const accounts = ['0123456789', '1111111111', '2222222222'];
    const first = new Map<string, string>();
    for (let round = 0; round < 3; round++) {
      for (const bank of round === 1 ? [...banks].reverse() : banks) {
        for (const account of accounts) {
          const fresh = createReferenceStore(fixtures, { seed: 7, clock }).lookupAccount(bank.code, account).account_name;
          const name = store.lookupAccount(bank.code.toLowerCase(), account).account_name;
          expect(name).toBe(fresh);
          expect(name).toBe(first.get(`${bank.code}|${account}`) ?? name);
          first.set(`${bank.code}|${account}`, name);
        }
      }
    }
  });
});
