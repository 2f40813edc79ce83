/**
 * Query parameters whose values never reach a log line (CONTRACT §9: the admin token above all),
 * array forms (`token[]=`, `token[0]=`) included.
 */
const SECRET_PARAMS = /^(token|access_token|admin_token|api_key|key|secret|signature|svc-signature)(\[[^\]]*\])*$/i;

/**
 * The request URL as logs may show it: the value of every secret-looking query parameter is
 * replaced by `[redacted]`. Works on the raw string so a malformed URL is redacted too.
 */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const query = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq < 0 ? pair : pair.slice(0, eq);
      let decoded = name;
      try {
        decoded = decodeURIComponent(name);
      } catch {
        // keep the raw name
      }
      return eq >= 0 && SECRET_PARAMS.test(decoded) ? `${name}=[redacted]` : pair;
    })
    .join('&');
  return `${url.slice(0, q)}?${query}`;
}
