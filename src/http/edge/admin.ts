import { isIP } from 'node:net';
import type { Context, Middleware } from 'koa';
import { safeEqual } from '../../auth';
import { forbidden, unauthorized } from '../../shared/errors';
import { requireJsonBody } from './body';

/** Where the sandbox listens and what else it answers to (CONTRACT §4). */
export interface SandboxHosts {
  /** The listen address (`--host`): its name is the sandbox's own unless it is a wildcard. */
  host?: string;
  /** `--allowed-host`: more `Host` names the sandbox answers to. */
  allowedHosts?: readonly string[];
}

/** The names every sandbox answers to, whatever it listens on. */
const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

/** Listen addresses that mean "every interface": no request names them as its Host. */
const WILDCARDS: ReadonlySet<string> = new Set(['0.0.0.0', '[::]', '[::0]', '[0:0:0:0:0:0:0:0]']);

/**
 * The guards of the control API's routes and the dashboard's (CONTRACT §4, §15), one per route
 * auth kind: each route's own `auth` is what enforces it (an unknown path under /sandbox is a
 * 404 like any other). Both first refuse what a web page elsewhere could send, with 403
 * `E_FORBIDDEN` (see `refuseForeignPages`).
 * - `admin` (the control API): then, with an admin token configured, `Authorization: Bearer
 *   <token>` is required; without one the control API is open to callers on the sandbox's own
 *   host names (the server binds loopback). A body must be JSON.
 * - `page` (the dashboard page and its assets): no token, since they hold no data and the page
 *   must load to ask for it; the token never travels in a URL. A link followed from another
 *   site opens the page.
 */
export function controlGuards(adminToken: string | undefined, hosts: SandboxHosts = {}): { admin: Middleware; page: Middleware } {
  const own = ownHostNames(hosts);
  // With an admin token, the bearer check stands in for the Host check (a page on a rebound
  // name has no token); the Origin check applies either way.
  const hostCheck = adminToken ? undefined : own;
  return {
    admin: (ctx, next) => {
      refuseForeignPages(ctx, hostCheck, false);
      refuseDeliveries(ctx);
      if (adminToken) {
        const given = /^Bearer\s+(\S+)\s*$/i.exec(ctx.get('authorization'))?.[1] ?? '';
        if (!safeEqual(given, adminToken)) {
          throw unauthorized('The control API needs Authorization: Bearer <admin token> (--admin-token)');
        }
      }
      requireJsonBody(ctx);
      return next();
    },
    page: (ctx, next) => {
      refuseForeignPages(ctx, hostCheck, true);
      // No other page may frame the dashboard and have a user click through it (clickjacking).
      ctx.set('Content-Security-Policy', "frame-ancestors 'none'");
      ctx.set('X-Frame-Options', 'DENY');
      return next();
    },
  };
}

/** localhost, 127.0.0.1, [::1], the `--host` given (not a wildcard) and every `--allowed-host`. */
export function ownHostNames(hosts: SandboxHosts): ReadonlySet<string> {
  const names = new Set(LOOPBACK_NAMES);
  const listen = hosts.host === undefined ? undefined : hostNameOf(hosts.host);
  if (listen !== undefined && !WILDCARDS.has(listen)) names.add(listen);
  for (const given of hosts.allowedHosts ?? []) {
    const name = hostNameOf(given);
    if (name !== undefined) names.add(name);
  }
  return names;
}

/**
 * Refuses (403 `E_FORBIDDEN`) what a web page other than the sandbox's own could send:
 * - a `Host` that is not one of `own` (DNS rebinding: a page on evil.example whose name now
 *   resolves to 127.0.0.1 reads the control API as its own origin); skipped when `own` is
 *   undefined (an admin token guards instead) or no Host was sent (HTTP/1.0: no browser);
 *   an IP address is no name to rebind, and is let through;
 * - an `Origin` other than `http://<the request's Host>`, `null` included (browsers send
 *   Origin on every cross-origin POST, form and no-cors ones too; same-origin fetches of the
 *   dashboard send its own or none);
 * - `Sec-Fetch-Site: cross-site` or `same-site` (a page on another port of this host), but for
 *   a link followed, in a tab, to the dashboard page itself.
 * Callers that are not browsers (curl, the CLI, tests) send no Origin and no Sec-Fetch-Site.
 */
function refuseForeignPages(ctx: Context, own: ReadonlySet<string> | undefined, page: boolean): void {
  const host = ctx.req.headers.host;
  if (own !== undefined && host !== undefined) {
    const name = hostNameOf(host);
    const answers = [...own].join(', ');
    if (name === undefined) {
      throw forbidden(`Host ${clip(host)} is not a host name: this sandbox answers ${answers}`);
    }
    // DNS rebinding needs a name that resolves anew: an IP address typed as the Host is the
    // address the browser connected to (`--host 0.0.0.0` reached at its LAN address, say).
    if (!own.has(name) && isIP(name.replace(/^\[|\]$/g, '')) === 0) {
      throw forbidden(
        `Host ${name} is not this sandbox's (it answers ${answers}; other names are refused against DNS rebinding): start it with --allowed-host ${name} to allow it, or with --admin-token`,
      );
    }
  }
  const origin = ctx.req.headers.origin;
  if (origin !== undefined && !sameOrigin(origin, host)) {
    throw forbidden(
      `Cross-origin request refused: Origin ${clip(origin)} is not this sandbox's (${host === undefined ? 'no Host was sent' : `http://${clip(host)}`}). The control API and the dashboard answer only their own page and callers that send no Origin: open ${host === undefined ? 'the dashboard' : `http://${clip(host)}/sandbox/dashboard`}, or call /sandbox from outside a browser (curl, the CLI)`,
    );
  }
  // Following a link to the dashboard from another page (docs, chat) opens the page, which
  // holds no data; everything it then asks for is same-origin. Only a link followed in a tab
  // (`document`): in a frame, the page would run under another site's (clickjacking).
  const headers = ctx.req.headers;
  const navigation = page && ctx.method === 'GET' && headers['sec-fetch-mode'] === 'navigate' && headers['sec-fetch-dest'] === 'document';
  const site = headers['sec-fetch-site']?.trim().toLowerCase();
  // `same-site` is a page on another port of this host (any local dev server): it sends no
  // Origin on a GET, and GET /sandbox/listen in a hidden frame took a partner's webhooks.
  if (!navigation && (site === 'cross-site' || site === 'same-site')) {
    throw forbidden(
      `Request from another page refused (Sec-Fetch-Site: ${site}): the control API and the dashboard answer only their own page; open the dashboard at its own address (type it or bookmark it), or call /sandbox from outside a browser (curl, the CLI)`,
    );
  }
}

/**
 * Refuses (403) a webhook delivery of a sandbox: a partner's `webhook_url` (or a listener's
 * `--forward-to`) pointing at `/sandbox/webhooks/send` made each delivery's body a new send, which
 * delivered again, until the process ran out of file descriptors. The attempt is logged with
 * this 403 and retried on its schedule, as any refusal is.
 */
function refuseDeliveries(ctx: Context): void {
  const delivery = ctx.req.headers['svc-delivery-id'];
  if (delivery === undefined) return;
  throw forbidden(
    `A webhook delivery (svc-delivery-id ${clip(String(delivery))}) may not call the control API: the webhook_url points at /sandbox, where each delivery would make another; point it at your receiver`,
  );
}

/** The Origin is `http://` plus the request's own Host (port included; default port 80 left out either way). */
function sameOrigin(origin: string, host: string | undefined): boolean {
  if (host === undefined || hostNameOf(host) === undefined) return false;
  try {
    const from = new URL(origin);
    return from.protocol === 'http:' && from.host === new URL(`http://${host}`).host;
  } catch {
    return false; // `null` (sandboxed frames, file: pages) and anything else not a URL
  }
}

const clip = (text: string) => (text.length > 100 ? `${text.slice(0, 100)}…` : text);

/**
 * True when `host` (a listen address) reaches only this machine: localhost, 127.0.0.0/8, ::1
 * (IPv4-mapped too). Anything else, wildcards included, can be reached from elsewhere.
 */
export function isLoopbackHost(host: string): boolean {
  const name = hostNameOf(host);
  if (name === undefined) return false;
  return (
    name === 'localhost' ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name) ||
    name === '[::1]' ||
    name === '[0:0:0:0:0:0:0:1]' ||
    /^\[(?:0:0:0:0:0|:):ffff:127\.\d{1,3}\.\d{1,3}\.\d{1,3}\]$/.test(name)
  );
}

/**
 * CONTRACT §4: the warning for a sandbox serving a non-loopback address without an admin
 * token; undefined when there is nothing to warn about.
 */
export function exposureWarning(config: { host: string; adminToken: string | undefined }): string | undefined {
  if (config.adminToken || isLoopbackHost(config.host)) return undefined;
  return (
    `WARNING: serving on ${config.host} without --admin-token: anyone who can reach this port controls the sandbox ` +
    "(reset, pay in, create partners) and reads every partner's keys from /sandbox. Start it with --admin-token T " +
    '(or SANDBOX_ADMIN_TOKEN) to require Authorization: Bearer T there.'
  );
}

/**
 * A host name as a `Host` header carries it: lower case, an IPv6 address in brackets, without
 * the port (`Sandbox.Local:4010` → `sandbox.local`, `::1` → `[::1]`); undefined when `raw` is
 * not a host name (a path, a user, a space, an empty name).
 */
export function hostNameOf(raw: string): string | undefined {
  const text = raw.trim().toLowerCase();
  // A bare IPv6 address (two colons or more, nothing but hex digits, colons and dots): bracketed.
  const bracketed = /^[0-9a-f.]*:[0-9a-f.]*:[0-9a-f:.]*$/.test(text) ? `[${text}]` : text;
  return /^(\[[0-9a-f:.]+\]|[a-z0-9_](?:[a-z0-9_.-]*[a-z0-9_])?)(?::\d{1,5})?$/.exec(bracketed)?.[1];
}
