import type { AddressFormat } from '../reference';
import { randomString } from '../shared/ids';

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const HEX = '0123456789abcdef';
const DIGITS = '0123456789';

const ADDRESS: Record<AddressFormat, { pattern: RegExp; description: string }> = {
  evm: { pattern: /^0x[0-9a-fA-F]{40}$/, description: '0x followed by 40 hex characters' },
  tron: { pattern: /^T[1-9A-HJ-NP-Za-km-z]{33}$/, description: 'T followed by 33 base58 characters' },
  solana: { pattern: /^[1-9A-HJ-NP-Za-km-z]{32,44}$/, description: '32-44 base58 characters' },
};

const TX_HASH: Record<AddressFormat, { pattern: RegExp; description: string }> = {
  evm: { pattern: /^0x[0-9a-fA-F]{64}$/, description: '0x followed by 64 hex characters' },
  tron: { pattern: /^[0-9a-fA-F]{64}$/, description: '64 hex characters' },
  solana: { pattern: /^[1-9A-HJ-NP-Za-km-z]{64,88}$/, description: '64-88 base58 characters' },
};

/** Why `address` is not valid for the format, or undefined when it is. */
export function addressProblem(format: AddressFormat, address: string): string | undefined {
  const rule = ADDRESS[format];
  return rule.pattern.test(address) ? undefined : `must be a ${format} address: ${rule.description}`;
}

/** Why `hash` is not a transaction hash of the format, or undefined when it is. */
export function txHashProblem(format: AddressFormat, hash: string): string | undefined {
  const rule = TX_HASH[format];
  return rule.pattern.test(hash) ? undefined : `must be a ${format} transaction hash: ${rule.description}`;
}

/** Seeded generators for simulated chain and bank artefacts, from the ids' draws (`Ids#draw`). */
export function createArtefacts(draw: () => number) {
  // Prefixes written into the one flat string (no cons-string kept with every order).
  const hex = (n: number, prefix?: string) => randomString(draw, HEX, n, prefix);
  const b58 = (n: number, prefix?: string) => randomString(draw, BASE58, n, prefix);
  return {
    address(format: AddressFormat): string {
      if (format === 'evm') return hex(40, '0x');
      if (format === 'tron') return b58(33, 'T');
      return b58(44);
    },
    txHash(format: AddressFormat): string {
      if (format === 'evm') return hex(64, '0x');
      if (format === 'tron') return hex(64);
      return b58(88);
    },
    bankReference(): string {
      return randomString(draw, DIGITS, 16, 'TRF');
    },
    accountNumber(): string {
      return randomString(draw, DIGITS, 10);
    },
  };
}
export type Artefacts = ReturnType<typeof createArtefacts>;
