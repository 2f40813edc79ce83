/**
 * The Chromium that browser tests drive with playwright-core, found so that `npm install && npm
 * test` needs nothing but Node. In order:
 *   1. `CHROMIUM_PATH`, when set (an error if nothing is there: a setting is never ignored);
 *   2. the system's: /usr/bin/chromium, then chromium, chromium-browser, google-chrome(-stable)
 *      on PATH (and Chrome or Chromium in /Applications on macOS);
 *   3. the headless Chromium inside the npm package `@sparticuz/chromium` (a devDependency, so
 *      `npm install` brings it; linux-x64 only). Its brotli-compressed binary is unpacked once
 *      into node_modules/.cache/ramp-sandbox/chromium-<version>/ (about 200 MB), beside the
 *      package's fonts and the NSS libraries it links (Amazon Linux builds, put on
 *      LD_LIBRARY_PATH, so a slim image without libnss3 runs it too).
 *
 * Every binary gets the same flags (ARGS), so a test sees the same browser whichever one runs
 * it. The package's own `chromium.args` are not used: they are for AWS Lambda (one process, web
 * security and site isolation off), and the dashboard should be seen as a person's browser sees
 * it.
 */
import { spawn } from 'node:child_process';
import { accessSync, constants, createReadStream, existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { delimiter, dirname, join } from 'node:path';
import { createBrotliDecompress } from 'node:zlib';
import { chromium, type Browser, type BrowserContext, type LaunchOptions } from 'playwright-core';

/**
 * Headless, no sandbox (containers and root), and quiet on the network: the machines this runs on
 * may refuse every outside connection, and Chromium's background ones (QUIC, component updates,
 * sync, field trials) would otherwise fail or hang there.
 */
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface ChromiumBinary {
  executablePath: string;
  /** Where it came from, for messages. */
  source: 'CHROMIUM_PATH' | 'system' | '@sparticuz/chromium';
  /** What to add to the browser's environment (the npm one's fonts and libraries). */
  env: Record<string, string>;
}

const ROOT = join(import.meta.dirname, '../..');
const SYSTEM_NAMES = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'];
const MAC_APPS = ['/Applications/Google Chrome.app/Contents/MacOS/Google Chrome', '/Applications/Chromium.app/Contents/MacOS/Chromium'];

const executable = (path: string) => {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

function systemChromium(): string | undefined {
  if (executable('/usr/bin/chromium')) return '/usr/bin/chromium';
  for (const name of SYSTEM_NAMES) {
    for (const dir of (process.env.PATH ?? '').split(delimiter)) {
      if (dir && executable(join(dir, name))) return join(dir, name);
    }
  }
  return process.platform === 'darwin' ? MAC_APPS.find(executable) : undefined;
}

let found: Promise<ChromiumBinary> | undefined;

/** The Chromium to launch (see the file's comment for the order). Unpacks the npm one on first use. */
function findChromium(): Promise<ChromiumBinary> {
  found ??= (async () => {
    const fromEnv = process.env.CHROMIUM_PATH;
    if (fromEnv) {
      if (!executable(fromEnv))
        throw new Error(`CHROMIUM_PATH=${fromEnv}: no executable there (unset it to use the system's chromium or the one from npm)`);
      return { executablePath: fromEnv, source: 'CHROMIUM_PATH', env: {} };
    }
    const system = systemChromium();
    if (system) return { executablePath: system, source: 'system', env: {} };
    return npmChromium();
  })();
  found.catch(() => (found = undefined));
  return found;
}

/** `@sparticuz/chromium`, unpacked into a directory of its own per version (see the file's comment). */
async function npmChromium(): Promise<ChromiumBinary> {
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(
      `No chromium found, and the one from npm (@sparticuz/chromium) is for linux-x64, not ${process.platform}-${process.arch}: install Chromium or Chrome, or set CHROMIUM_PATH`,
    );
  }
  // The package's exports hide its package.json and bin/: find them from its entry point.
  const entry = createRequire(import.meta.url).resolve('@sparticuz/chromium');
  const pkgDir = join(dirname(entry), '../..');
  const { version } = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')) as { version: string };
  const cacheRoot = join(ROOT, 'node_modules/.cache/ramp-sandbox');
  const dir = join(cacheRoot, `chromium-${version}`);
  if (!existsSync(join(dir, 'ready'))) await unpack(pkgDir, cacheRoot, dir);
  const libs = join(dir, 'al2023/lib');
  return {
    executablePath: join(dir, 'chromium'),
    source: '@sparticuz/chromium',
    env: {
      // The system's fonts when it has any, and the package's Open Sans in any case.
      FONTCONFIG_FILE: join(dir, 'fonts.conf'),
      LD_LIBRARY_PATH: [process.env.LD_LIBRARY_PATH, libs].filter(Boolean).join(':'),
    },
  };
}

/**
 * Unpacks into a fresh directory and renames it into place, so an interrupted unpack never leaves
 * a half-written binary behind, and two runs at once both end up with a whole one.
 */
async function unpack(pkgDir: string, cacheRoot: string, dir: string) {
  await mkdir(cacheRoot, { recursive: true });
  const staging = await mkdtemp(join(cacheRoot, 'unpacking-'));
  try {
    // The package unpacks into os.tmpdir(), and returns a copy already there: point it at ours.
    const { default: Chromium } = await import('@sparticuz/chromium');
    const tmpdir = process.env.TMPDIR;
    process.env.TMPDIR = staging;
    try {
      await Chromium.executablePath(join(pkgDir, 'bin'));
    } finally {
      if (tmpdir === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = tmpdir;
    }
    // Its NSS libraries, which the package unpacks only on AWS: brotli, then tar.
    await mkdir(join(staging, 'al2023'));
    await untarBrotli(join(pkgDir, 'bin/al2023.tar.br'), join(staging, 'al2023'));
    await writeFile(
      join(staging, 'fonts.conf'),
      [
        '<?xml version="1.0"?>',
        '<!DOCTYPE fontconfig SYSTEM "fonts.dtd">',
        '<fontconfig>',
        '  <include ignore_missing="yes">/etc/fonts/fonts.conf</include>',
        `  <dir>${join(dir, 'fonts')}</dir>`,
        `  <cachedir>${join(dir, 'fonts-cache')}</cachedir>`,
        '</fontconfig>',
        '',
      ].join('\n'),
    );
    await writeFile(join(staging, 'ready'), '');
    try {
      await rename(staging, dir);
    } catch {
      // Another run got there first: use its copy. Without `ready`, what is in the way is not one.
      if (existsSync(join(dir, 'ready'))) return;
      await rm(dir, { recursive: true, force: true });
      await rename(staging, dir);
    }
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

function untarBrotli(file: string, into: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const tar = spawn('tar', ['-x', '-C', into], { stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    tar.stderr.on('data', (c) => (stderr += String(c)));
    tar.on('error', reject);
    tar.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`tar -x ${file}: exit ${code}: ${stderr}`))));
    createReadStream(file).on('error', reject).pipe(createBrotliDecompress()).on('error', reject).pipe(tar.stdin);
  });
}

type PersistentOptions = Omit<NonNullable<Parameters<typeof chromium.launchPersistentContext>[1]>, 'executablePath' | 'headless' | 'env'>;

/** playwright-core's launch options for `found`, with ARGS and its environment. */
function launchOptions(found: ChromiumBinary, args: string[] = []): Pick<LaunchOptions, 'executablePath' | 'headless' | 'args' | 'env'> {
  return {
    executablePath: found.executablePath,
    headless: true,
    args: [...ARGS, ...args],
    env: { ...process.env, ...found.env } as LaunchOptions['env'],
  };
}

/** A browser with a profile in `profileDir` (as `chromium.launchPersistentContext`). */
export async function launchPersistentChromium(profileDir: string, options: PersistentOptions = {}): Promise<BrowserContext> {
  const found = await findChromium();
  return chromium.launchPersistentContext(profileDir, { ...options, ...launchOptions(found, options.args) });
}

/** A browser without a profile (as `chromium.launch`). */
export async function launchChromium(options: Omit<LaunchOptions, 'executablePath' | 'headless' | 'env'> = {}): Promise<Browser> {
  const found = await findChromium();
  return chromium.launch({ ...options, ...launchOptions(found, options.args) });
}
