import type { WallClock } from '../clock';
import type { Environment } from '../reference';
import { ApiError, unauthorized } from '../shared/errors';
import type { Partner, PartnerRegistry } from './partner.registry';
import { SIGNATURE_FORMAT, safeEqual, sign, signatureHint, verify, type ReceivedParts } from './signature';

/** What a route needs: `read` accepts the public key (no HMAC) or the secret key (HMAC). */
export type Access = 'read' | 'secret';

/** The request facts authentication looks at (no Koa types here). */
export interface AuthRequest {
  clientId: string | undefined;
  authorization: string | undefined;
  timestamp: string | undefined;
  signature: string | undefined;
  method: string;
  /** Path with query string, exactly as received. */
  path: string;
  /** The body exactly as received (CONTRACT §9): its text, or its bytes when not valid UTF-8. */
  rawBody: string | Uint8Array;
  ip: string;
}

export interface AuthContext {
  partner: Partner;
  env: Environment;
  kind: 'public' | 'secret';
  /** The Bearer key: the rate-limit bucket. */
  key: string;
}

export interface AuthOptions {
  /** Allowed |wall now − svc-timestamp| in ms (CONTRACT §3: ±300 s). */
  skewMs: number;
}

export const AUTH_MESSAGES = {
  missingClientId: 'Missing svc-client-id header',
  unknownClientId: 'Unknown client id',
  missingBearer: 'Missing Authorization header: expected "Bearer <key>"',
  unknownKey: 'Invalid API key',
  revokedKey: 'API key has been revoked: a newer key set was created for this partner',
  otherPartner: 'API key does not belong to this client id',
  encAsBearer: 'The encryption key (enc_*) is for HMAC signing only; send the secret key (sk_*) as the Bearer token',
  publicOnSecretRoute: 'This route needs the secret key (sk_*) with an HMAC signature; the public key works on read routes only',
  missingTimestamp: 'Missing svc-timestamp header (Unix time in milliseconds)',
  badTimestamp: 'svc-timestamp must be Unix time in milliseconds, as a string of digits',
  secondsTimestamp: 'svc-timestamp looks like seconds; it must be Unix time in milliseconds',
  missingSignature: 'Missing svc-signature header (sha256=<lowercase hex HMAC-SHA256>)',
  badSignatureFormat: 'svc-signature must be "sha256=" followed by 64 lowercase hex characters',
  badSignature: 'Invalid signature',
  ipBlocked: 'Request address is not in the partner IP whitelist',
} as const;

/**
 * What `diagnose` names when a bad signature matches a spec §5.2 "known mistake": the text after
 * `Invalid signature: ` in the 401's message (the inspector records it; the readiness checks of
 * CONTRACT §21 read it back by these exact words).
 */
export const SIGNATURE_MISTAKES = {
  secretKey: 'signed with the secret key; sign with the enc_* key',
  otherEnvironmentKey: 'a {env} secret key needs the {env} enc_* key',
  noV1: 'the signed path omits /v1; sign the full path including /v1',
  noQuery: 'the signed path omits the query string; sign the path with its query string',
  seconds: 'signed with a timestamp in seconds; sign the same millisecond value sent in svc-timestamp',
  byteOrderMark:
    'the body sent starts with a UTF-8 byte order mark (EF BB BF) the signature does not cover; sign the exact bytes sent, or send the body without a BOM',
  reserialised: 'the signed body differs from the bytes sent (re-serialised JSON?); sign the exact body string',
} as const;

/**
 * Authenticates one /v1 request per spec §5 and CONTRACT §3. Returns who is calling, or throws
 * the documented 401/403. Rate limiting is the caller's (it needs the route's cost).
 */
export function authenticate(
  req: AuthRequest,
  access: Access,
  deps: { partners: PartnerRegistry; wall: WallClock; options: AuthOptions },
): AuthContext {
  if (!req.clientId) throw unauthorized(AUTH_MESSAGES.missingClientId, { alternative: true });
  const partner = deps.partners.get(req.clientId);
  if (!partner) throw unauthorized(AUTH_MESSAGES.unknownClientId, { alternative: true });

  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(req.authorization ?? '')?.[1];
  if (!bearer) throw unauthorized(AUTH_MESSAGES.missingBearer);
  const resolved = deps.partners.resolveKey(bearer);
  if (!resolved) throw unauthorized(AUTH_MESSAGES.unknownKey);
  if (resolved.partner.client_id !== partner.client_id) throw unauthorized(AUTH_MESSAGES.otherPartner);
  if (resolved.revoked) throw unauthorized(AUTH_MESSAGES.revokedKey);
  if (resolved.kind === 'encryption') throw unauthorized(AUTH_MESSAGES.encAsBearer);

  if (!deps.partners.allowsIp(partner, req.ip)) {
    throw new ApiError('E_IP_BLOCKED', `${AUTH_MESSAGES.ipBlocked} (${req.ip})`);
  }

  const env = resolved.env;
  if (resolved.kind === 'public') {
    if (access === 'secret') throw new ApiError('E_FORBIDDEN', AUTH_MESSAGES.publicOnSecretRoute, { alternative: true });
    return { partner, env, kind: 'public', key: bearer };
  }

  verifySignature(req, partner, env, deps);
  return { partner, env, kind: 'secret', key: bearer };
}

function verifySignature(
  req: AuthRequest,
  partner: Partner,
  env: Environment,
  deps: { partners: PartnerRegistry; wall: WallClock; options: AuthOptions },
): void {
  const ts = req.timestamp;
  if (!ts) throw unauthorized(AUTH_MESSAGES.missingTimestamp);
  if (!/^\d{1,16}$/.test(ts)) throw unauthorized(AUTH_MESSAGES.badTimestamp);
  const tsMs = Number(ts);
  if (tsMs < 1e11) throw unauthorized(AUTH_MESSAGES.secondsTimestamp);
  const skew = deps.wall.now() - tsMs;
  if (Math.abs(skew) > deps.options.skewMs) {
    throw unauthorized(
      `svc-timestamp is ${Math.round(Math.abs(skew) / 1000)} s ${skew > 0 ? 'in the past' : 'in the future'}; ` +
        `allowed skew is ±${Math.round(deps.options.skewMs / 1000)} s of the server's wall clock`,
    );
  }
  if (!req.signature) throw unauthorized(AUTH_MESSAGES.missingSignature);
  const parts: ReceivedParts = {
    clientId: partner.client_id,
    timestamp: ts,
    method: req.method,
    path: req.path,
    rawBody: req.rawBody,
  };
  // The hint is computed only on failure: it hashes the body, which a good request never needs.
  if (!SIGNATURE_FORMAT.test(req.signature)) throw unauthorized(AUTH_MESSAGES.badSignatureFormat, hintOf(parts));
  if (verify(parts, deps.partners.signingKey(partner, env), req.signature)) return;
  const mistake = diagnose(parts, req.signature, partner, env);
  throw unauthorized(mistake ? `${AUTH_MESSAGES.badSignature}: ${mistake}` : AUTH_MESSAGES.badSignature, hintOf(parts));
}

function hintOf(parts: ReceivedParts) {
  return { headers: { 'svc-sandbox-hint': signatureHint(parts) } };
}

/** Names the spec §5.2 "known mistake" a bad signature matches, when it matches one. */
function diagnose(parts: ReceivedParts, got: string, partner: Partner, env: Environment): string | undefined {
  const enc = partner.keys[env].encryption_key;
  const other: Environment = env === 'test' ? 'live' : 'test';
  const matches = (p: ReceivedParts, key: string) => safeEqual(sign(p, key), got);
  if (matches(parts, partner.keys[env].secret_key)) return SIGNATURE_MISTAKES.secretKey;
  if (matches(parts, partner.keys[other].encryption_key)) {
    return `signed with the ${other} encryption key; ${SIGNATURE_MISTAKES.otherEnvironmentKey.replaceAll('{env}', env)}`;
  }
  const [pathname = '', query] = splitQuery(parts.path);
  if (pathname.startsWith('/v1/') && matches({ ...parts, path: parts.path.slice(3) }, enc)) {
    return SIGNATURE_MISTAKES.noV1;
  }
  if (query !== undefined && matches({ ...parts, path: pathname }, enc)) {
    return SIGNATURE_MISTAKES.noQuery;
  }
  if (parts.timestamp.length > 3 && matches({ ...parts, timestamp: parts.timestamp.slice(0, -3) }, enc)) {
    return SIGNATURE_MISTAKES.seconds;
  }
  if (
    typeof parts.rawBody === 'string' &&
    parts.rawBody.charCodeAt(0) === 0xfeff &&
    matches({ ...parts, rawBody: parts.rawBody.slice(1) }, enc)
  ) {
    // .NET's StreamWriter with Encoding.UTF8 writes a BOM the signing code never saw.
    return SIGNATURE_MISTAKES.byteOrderMark;
  }
  if (typeof parts.rawBody === 'string' && parts.rawBody) {
    try {
      const reserialised = JSON.stringify(JSON.parse(parts.rawBody));
      if (reserialised !== parts.rawBody && matches({ ...parts, rawBody: reserialised }, enc)) {
        return SIGNATURE_MISTAKES.reserialised;
      }
    } catch {
      // not JSON: nothing to compare
    }
  }
  return undefined;
}

function splitQuery(path: string): [string, string | undefined] {
  const i = path.indexOf('?');
  return i < 0 ? [path, undefined] : [path.slice(0, i), path.slice(i + 1)];
}
