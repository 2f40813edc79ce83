import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { packagePath } from '../shared/package-root';
import { firstIssue } from '../shared/validation';
import { FixtureFilesSchema, type Fixtures } from './fixtures.schema';
import { deepFreeze } from '../shared/freeze';

/** The fixtures shipped with the sandbox (`fixtures/` at the package root, from src/ or dist/). */
export const DEFAULT_FIXTURES_DIR = packagePath('fixtures');

/** Thrown when a fixtures directory is missing a file or holds bad data. */
export class FixtureError extends Error {
  override name = 'FixtureError';
}

/** Reads and validates the five fixture files of `dir`, then checks they agree with each other. */
export function loadFixtures(dir: string = DEFAULT_FIXTURES_DIR): Fixtures {
  const read = <K extends keyof typeof FixtureFilesSchema>(file: K) => {
    const path = join(dir, file);
    let raw: unknown;
    try {
      // Editors on Windows save UTF-8 with a byte order mark; JSON.parse refuses it.
      raw = JSON.parse(readFileSync(path, 'utf8').replace(/^\uFEFF/, ''));
    } catch (error) {
      throw new FixtureError(`${path}: ${(error as Error).message}`);
    }
    const parsed = FixtureFilesSchema[file].safeParse(raw);
    if (!parsed.success) {
      const issue = firstIssue(parsed.error);
      throw new FixtureError(`${path}: ${issue.path || '(root)'}: ${issue.message}`);
    }
    return parsed.data as ReturnType<(typeof FixtureFilesSchema)[K]['parse']>;
  };
  const fixtures: Fixtures = {
    fiats: read('fiat-currencies.json'),
    cryptos: read('crypto-currencies.json'),
    networks: read('networks.json'),
    institutions: read('institutions.json'),
    rates: read('market-rates.json'),
  };
  checkConsistency(fixtures, dir);
  return fixtures;
}

const FIXTURE_FILES = [
  'fiat-currencies.json',
  'crypto-currencies.json',
  'networks.json',
  'institutions.json',
  'market-rates.json',
] as const;
const loaded = new Map<string, { stamp: string; fixtures: Fixtures }>();

/**
 * `loadFixtures`, read and validated once per directory while its files stay as they were
 * (size and mtime): every in-process sandbox of a test run shares them, so starting one stays
 * cheap (CONTRACT §14). Deeply frozen, since they are shared.
 */
export function loadFixturesOnce(dir: string = DEFAULT_FIXTURES_DIR): Fixtures {
  const stamp = FIXTURE_FILES.map((file) => {
    try {
      const st = statSync(join(dir, file));
      return `${st.size}:${st.mtimeMs}`;
    } catch {
      return 'missing';
    }
  }).join('|');
  const hit = loaded.get(dir);
  if (hit?.stamp === stamp) return hit.fixtures;
  const fixtures = deepFreeze(loadFixtures(dir));
  loaded.set(dir, { stamp, fixtures });
  return fixtures;
}

function checkConsistency(f: Fixtures, dir: string): void {
  const fail = (message: string) => {
    throw new FixtureError(`${dir}: ${message}`);
  };
  const fiatCodes = new Set(f.fiats.map((x) => x.code));
  const cryptoSymbols = new Set(f.cryptos.map((x) => x.symbol));
  for (const symbol of cryptoSymbols) if (fiatCodes.has(symbol)) fail(`${symbol} is both a fiat code and a crypto symbol`);
  for (const [env, networks] of Object.entries(f.networks)) {
    const ids = new Set<string>();
    for (const n of networks) {
      if (ids.has(n.identifier)) fail(`networks.${env}: duplicate identifier ${n.identifier}`);
      ids.add(n.identifier);
      if (n.is_testnet !== (env === 'test')) fail(`networks.${env}.${n.identifier}: is_testnet must be ${env === 'test'}`);
      for (const c of n.currencies) if (!cryptoSymbols.has(c)) fail(`networks.${env}.${n.identifier}: unknown currency ${c}`);
    }
  }
  const codes = new Set<string>();
  for (const [fiat, list] of Object.entries(f.institutions)) {
    if (!fiatCodes.has(fiat)) fail(`institutions: unknown fiat ${fiat}`);
    for (const i of list) {
      if (codes.has(i.code)) fail(`institutions.${fiat}: duplicate code ${i.code}`);
      codes.add(i.code);
    }
  }
  for (const fiat of fiatCodes) {
    for (const crypto of cryptoSymbols) {
      if (!f.rates[`${fiat}_${crypto}`]) fail(`market-rates: missing pair ${fiat}_${crypto}`);
    }
  }
}
