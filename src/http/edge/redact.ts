/**
 * Query parameters whose values never reach a log line (CONTRACT §9: the admin token above all),
 * array forms (`token[]=`, `token[0]=`) included.
 */
const SECRET_PARAMS =
  /^(token|access_token|admin_token|api_key|apikey|key|secret|secret_key|encryption_key|client_secret|password|signature|svc-signature)(\[[^\]]*\])*$/i;

/** A partner's secret or encryption key (`sk_test_…`, `enc_live_…`), wherever it shows. */
const KEY_MATERIAL = /\b(sk|enc)_(test|live)_([A-Za-z0-9]+)/g;

/**
 * `text` with every secret and encryption key masked as the inspector masks a Bearer key (its
 * prefix and last four): a partner that put one in a query, a path or a body saw it whole in the
 * inspector, its HAR and the 404 that echoed the path (CONTRACT §11: key material never appears).
 */
export function maskKeys(text: string): string {
  if (!text.includes('_test_') && !text.includes('_live_')) return text;
  return text.replace(
    KEY_MATERIAL,
    (_, kind: string, env: string, rest: string) => `${kind}_${env}_****${rest.length > 8 ? rest.slice(-4) : ''}`,
  );
}

const REDACTED = '[redacted]';

/**
 * The request URL as logs may show it: the value of every secret-looking query parameter is
 * replaced by `[redacted]`, and, given the admin token (`secret`), so is every query value, query
 * name or path segment that holds it under any name, raw or percent-encoded (`?t=`, `?x=Bearer+…`,
 * `/v1/orders/<token>`; issue: it showed under names other than `token`). Works on the raw string
 * so a malformed URL is redacted too.
 */
export function redactUrl(url: string, secret?: string): string {
  const q = url.indexOf('?');
  let path = q < 0 ? url : url.slice(0, q);
  if (secret)
    path = path
      .split('/')
      .map((segment) => (holds(segment, secret, false) ? REDACTED : segment))
      .join('/');
  if (q < 0) return maskKeys(secret ? redactText(path, secret) : path);
  const query = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq < 0 ? pair : pair.slice(0, eq);
      if (secret && holds(name, secret, true)) return REDACTED;
      let decoded = name;
      try {
        decoded = decodeURIComponent(name);
      } catch {
        // keep the raw name
      }
      if (eq < 0) return pair;
      return SECRET_PARAMS.test(decoded) || (secret !== undefined && secret !== '' && holds(pair.slice(eq + 1), secret, true))
        ? `${name}=${REDACTED}`
        : pair;
    })
    .join('&');
  const redacted = `${path}?${query}`;
  return maskKeys(secret ? redactText(redacted, secret) : redacted);
}

/**
 * `text` (a message, a header, a body excerpt) with the admin token scrubbed: its raw and
 * percent-encoded forms replaced by `[redacted]`; a text that still holds it once decoded (an
 * odd encoding) is withheld whole.
 */
export function redactText(text: string, secret: string | undefined): string {
  if (!secret) return text;
  let out = text;
  for (const form of formsOf(secret)) if (out.includes(form)) out = out.replaceAll(form, REDACTED);
  if (out.includes('%') && holds(out, secret, true)) return `${REDACTED} (it held the admin token)`;
  return out;
}

/** The token as it may be written in a URL: itself, and encodeURIComponent's form in both hex cases. */
function formsOf(secret: string): string[] {
  const encoded = encodeURIComponent(secret);
  return [...new Set([secret, encoded, encoded.replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase())])];
}

/** Whether a URL component holds `secret`, as it is or decoded (`+` a space in a query; bad escapes left as they are). */
function holds(component: string, secret: string, plusIsSpace: boolean): boolean {
  if (component.includes(secret)) return true;
  if (!component.includes('%') && !(plusIsSpace && component.includes('+'))) return false;
  const spaced = plusIsSpace ? component.replaceAll('+', ' ') : component;
  // Decoded once and twice: a value encoded twice still holds the token.
  const once = lenientDecode(spaced);
  return once.includes(secret) || (once.includes('%') && lenientDecode(once).includes(secret));
}

/** decodeURIComponent, run by run of escapes, so one bad escape does not hide the rest. */
function lenientDecode(text: string): string {
  return text.replace(/(?:%[0-9a-f]{2})+/gi, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return run;
    }
  });
}
