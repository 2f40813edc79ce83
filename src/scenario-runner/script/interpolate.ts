import { Faker, en } from '@faker-js/faker';
import { createHmac } from 'node:crypto';

/** Thrown when a `${...}` cannot be resolved while a step runs. */
export class ReferenceError_ extends Error {
  override name = 'ReferenceError';
}

export interface FakeHelpers {
  name(): string;
  email(): string;
  phone(): string;
  reference(): string;
  address(network: string): Promise<string>;
  tx_hash(network: string): Promise<string>;
  account(bankCode: string): Promise<{ institution_code: string; account_number: string; account_name: string }>;
}

const EXPR = /^\s*([A-Za-z_]\w*)((?:\.[\w-]+)*)(?:\(([^)]*)\))?\s*$/;

/**
 * Resolves `${...}` in every string of `value`: `${o.reference}` reads a named result,
 * `${fake.address(base-sepolia)}` calls a helper. A string that is exactly one `${...}` keeps
 * the value's type (number, object); inside longer text it is stringified.
 */
export async function interpolate(value: unknown, scope: ReadonlyMap<string, unknown>, fake: FakeHelpers): Promise<unknown> {
  if (typeof value === 'string') {
    const whole = /^\$\{([^}]+)\}$/.exec(value);
    if (whole) return evaluate(whole[1]!, scope, fake);
    let out = '';
    let last = 0;
    for (const m of value.matchAll(/\$\{([^}]+)\}/g)) {
      out += value.slice(last, m.index) + String(await evaluate(m[1]!, scope, fake));
      last = m.index! + m[0].length;
    }
    return out + value.slice(last);
  }
  if (Array.isArray(value)) return Promise.all(value.map((v) => interpolate(v, scope, fake)));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = await interpolate(v, scope, fake);
    return out;
  }
  return value;
}

async function evaluate(expr: string, scope: ReadonlyMap<string, unknown>, fake: FakeHelpers): Promise<unknown> {
  const m = EXPR.exec(expr);
  if (!m) throw new ReferenceError_(`cannot read \${${expr}}: use name.path or fake.helper(arg)`);
  const [, root, pathText = '', args] = m;
  const path = pathText.split('.').filter(Boolean);
  if (root === 'fake') {
    const helper = path[0] as keyof FakeHelpers | undefined;
    if (!helper || !(helper in fake)) {
      throw new ReferenceError_(
        `unknown helper fake.${helper ?? ''}; helpers: name, email, phone, reference, address(network), tx_hash(network), account(bank_code)`,
      );
    }
    const fn = fake[helper] as (arg?: string) => unknown;
    if (['address', 'tx_hash', 'account'].includes(helper) && !args)
      throw new ReferenceError_(`fake.${helper} needs an argument, e.g. fake.${helper}(${helper === 'account' ? '058' : 'base-sepolia'})`);
    return fn(args?.trim());
  }
  if (!scope.has(root!)) throw new ReferenceError_(`missing reference ${root}: no earlier step is named ${root}`);
  let current: unknown = scope.get(root!);
  for (const key of path) {
    if (current === null || typeof current !== 'object' || !(key in current)) {
      throw new ReferenceError_(`missing reference \${${expr}}: ${key} is not in ${root}`);
    }
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

/** Reads `a.b.0.c` out of an object. */
export function readPath(value: unknown, path: string): unknown {
  let current = value;
  for (const key of path.split('.')) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

/** Seeded faker helpers; chain-shaped values follow the network's address format. */
export function createFakeHelpers(
  seed: number,
  lookups: {
    format(network: string): Promise<'evm' | 'tron' | 'solana'>;
    accountName(bankCode: string, accountNumber: string): Promise<string>;
  },
): FakeHelpers {
  const faker = new Faker({ locale: [en] });
  faker.seed(seed);
  const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
  const hex = (n: number) => faker.string.hexadecimal({ length: n, casing: 'lower', prefix: '' });
  return {
    name: () => faker.person.fullName(),
    email: () => faker.internet.email().toLowerCase(),
    phone: () => `+234${faker.string.numeric(10)}`,
    reference: () => `ref_${faker.string.alphanumeric(12)}`,
    async address(network) {
      const format = await lookups.format(network);
      // never end in a magic suffix by accident (docs/control-api.md, "Magic values")
      if (format === 'evm') return `0x${hex(38)}00`;
      if (format === 'tron') return `T${faker.string.fromCharacters(BASE58, 32)}1`;
      return `${faker.string.fromCharacters(BASE58, 43)}1`;
    },
    async tx_hash(network) {
      const format = await lookups.format(network);
      if (format === 'evm') return `0x${hex(64)}`;
      if (format === 'tron') return hex(64);
      return faker.string.fromCharacters(BASE58, 88);
    },
    async account(bankCode) {
      // 10 digits, avoiding the magic numbers 0000000000-3333333333 patterns
      let number = faker.string.numeric({ length: 10, allowLeadingZeros: false });
      if (/^(\d)\1{9}$/.test(number)) number = `4${number.slice(1)}`;
      return { institution_code: bankCode, account_number: number, account_name: await lookups.accountName(bankCode, number) };
    },
  };
}

/** A signature with a key nobody holds: for bad-signature deliveries. */
export function wrongSignature(text: string): string {
  return `sha256=${createHmac('sha256', 'enc_test_not_the_partner_key_0000').update(text).digest('hex')}`;
}
