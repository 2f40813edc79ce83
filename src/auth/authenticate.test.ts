import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { fixedWallClock, VirtualClock } from '../clock';
import { createIds } from '../shared/ids';
import { AUTH_MESSAGES, authenticate, type Access, type AuthRequest } from './authenticate';
import { createPartnerRegistry, type KeySet } from './partner.registry';
import { refusal } from '../../test/support/refusal';

// Spec §5 and CONTRACT §3: who is calling, or the documented 401/403; each known signing mistake
// of spec §5.2 is named in the message. Requests are signed here with node:crypto, never with
// src/auth's own signer, so a wrong canonical string there cannot agree with itself.

const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);
const SKEW_MS = 300_000;

const keys = (env: 'test' | 'live', tag: string): KeySet => ({
  public_key: `pk_${env}_${tag.repeat(20)}`,
  secret_key: `sk_${env}_${tag.repeat(20)}`,
  encryption_key: `enc_${env}_${tag.repeat(20)}`,
});
const ACME = { test: keys('test', 'a'), live: keys('live', 'b') };
const OTHER = { test: keys('test', 'c'), live: keys('live', 'd') };

function setup() {
  const partners = createPartnerRegistry({ ids: createIds(1), clock: new VirtualClock({ start: NOW, mode: 'manual' }) });
  partners.create({ client_id: 'ptr_acme', keys: ACME });
  partners.create({ client_id: 'ptr_other', keys: OTHER });
  const wall = fixedWallClock(NOW);
  const auth = (req: AuthRequest, access: Access = 'secret') => authenticate(req, access, { partners, wall, options: { skewMs: SKEW_MS } });
  return { partners, wall, auth };
}

const hmac = (key: string, text: string) => `sha256=${createHmac('sha256', key).update(text).digest('hex')}`;

interface Signing {
  /** What the canonical string says, where it differs from what is sent. */
  clientId?: string;
  timestamp?: string;
  path?: string;
  body?: string;
  key?: string;
}

/**
 * A secret-key request as a partner sends it: `sent` is what goes on the wire, `signed` what the
 * partner put into the canonical string (a mistake is a difference between the two).
 */
function request(
  sent: {
    method?: string;
    path?: string;
    body?: string;
    timestamp?: string;
    env?: 'test' | 'live';
    clientId?: string;
    bearer?: string;
    ip?: string;
  } = {},
  signed: Signing = {},
): AuthRequest {
  const env = sent.env ?? 'test';
  const method = sent.method ?? 'POST';
  const path = sent.path ?? '/v1/orders?include=timeline';
  const body = sent.body ?? '{"b":1,"a":[1,2]}';
  const timestamp = sent.timestamp ?? String(NOW);
  const clientId = sent.clientId ?? 'ptr_acme';
  const canonical = [
    signed.clientId ?? clientId,
    signed.timestamp ?? timestamp,
    method.toUpperCase(),
    signed.path ?? path,
    signed.body ?? body,
  ].join('|');
  return {
    clientId,
    authorization: `Bearer ${sent.bearer ?? ACME[env].secret_key}`,
    timestamp,
    signature: hmac(signed.key ?? ACME[env].encryption_key, canonical),
    method,
    path,
    rawBody: body,
    ip: sent.ip ?? '127.0.0.1',
  };
}

/** The `svc-sandbox-hint` the request should get, computed independently (CONTRACT §3). */
function expectedHint(req: AuthRequest): string {
  const prefix = encodeURIComponent(`${req.clientId}|${req.timestamp}|${req.method.toUpperCase()}|${req.path}|`);
  const body = typeof req.rawBody === 'string' ? Buffer.from(req.rawBody, 'utf8') : req.rawBody;
  return `prefix=${prefix}; body_sha256=${createHash('sha256').update(body).digest('hex')}; body_length=${body.length}`;
}

describe('authenticate', () => {
  it('accepts a request signed with the enc_* key over the exact bytes sent, in the environment of its key', () => {
    const { auth } = setup();
    const ctx = auth(request());
    expect(ctx).toMatchObject({ env: 'test', kind: 'secret', key: ACME.test.secret_key });
    expect(ctx.partner.client_id).toBe('ptr_acme');
    expect(auth(request({ env: 'live' }))).toMatchObject({ env: 'live', kind: 'secret', key: ACME.live.secret_key });
    // A GET: no body, signed as the empty string; the method is upper-cased in the canonical string.
    expect(auth(request({ method: 'get', path: '/v1/orders/ORD1', body: '' }), 'read').kind).toBe('secret');
  });

  it('accepts the public key on a read route with no signature at all', () => {
    const { auth } = setup();
    const ctx = auth(
      {
        clientId: 'ptr_acme',
        authorization: `Bearer ${ACME.live.public_key}`,
        timestamp: undefined,
        signature: undefined,
        method: 'GET',
        path: '/v1/networks',
        rawBody: '',
        ip: '127.0.0.1',
      },
      'read',
    );
    expect(ctx).toMatchObject({ env: 'live', kind: 'public', key: ACME.live.public_key });
  });

  it('refuses the public key on a secret route with a 403 in the alternative body', () => {
    const { auth } = setup();
    const error = refusal(() => auth(request({ bearer: ACME.test.public_key })));
    expect(error.code).toBe('E_FORBIDDEN');
    expect(error.status).toBe(403);
    expect(error.alternative).toBe(true);
    expect(error.message).toBe(AUTH_MESSAGES.publicOnSecretRoute);
  });

  it('refuses a missing or unknown client id with a 401 in the alternative body', () => {
    const { auth } = setup();
    const missing = refusal(() => auth({ ...request(), clientId: undefined }));
    expect([missing.status, missing.alternative, missing.message]).toEqual([401, true, AUTH_MESSAGES.missingClientId]);
    const unknown = refusal(() => auth(request({ clientId: 'ptr_nobody' })));
    expect([unknown.status, unknown.alternative, unknown.message]).toEqual([401, true, AUTH_MESSAGES.unknownClientId]);
  });

  it('refuses a missing Bearer, an unknown key, and the enc_* key sent as the Bearer', () => {
    const { auth } = setup();
    expect(refusal(() => auth({ ...request(), authorization: undefined })).message).toBe(AUTH_MESSAGES.missingBearer);
    expect(refusal(() => auth({ ...request(), authorization: `Basic ${ACME.test.secret_key}` })).message).toBe(AUTH_MESSAGES.missingBearer);
    const unknown = refusal(() => auth(request({ bearer: `sk_test_${'z'.repeat(20)}` })));
    expect([unknown.code, unknown.message, unknown.alternative]).toEqual(['E_UNAUTHORIZED', AUTH_MESSAGES.unknownKey, false]);
    expect(refusal(() => auth(request({ bearer: ACME.test.encryption_key }))).message).toBe(AUTH_MESSAGES.encAsBearer);
  });

  it("names a key sent with another partner's client id", () => {
    const { auth } = setup();
    const error = refusal(() => auth(request({ clientId: 'ptr_other' })));
    expect(error.code).toBe('E_UNAUTHORIZED');
    expect(error.message).toBe('API key does not belong to this client id');
  });

  it('names a revoked key: one from a set that was rotated away', () => {
    const { auth, partners } = setup();
    const old = request();
    partners.rotate('ptr_acme', 'test');
    const error = refusal(() => auth(old));
    expect(error.code).toBe('E_UNAUTHORIZED');
    expect(error.message).toBe('API key has been revoked: a newer key set was created for this partner');
    // the other environment's keys were not rotated
    expect(auth(request({ env: 'live' })).env).toBe('live');
  });

  it('refuses a caller outside a non-empty IP whitelist with a 403 E_IP_BLOCKED naming the address', () => {
    const { auth, partners } = setup();
    partners.update('ptr_acme', { ip_whitelist: ['10.0.0.0/8'] });
    expect(auth(request({ ip: '::ffff:10.1.2.3' })).kind).toBe('secret');
    const error = refusal(() => auth(request({ ip: '192.0.2.1' })));
    expect(error.code).toBe('E_IP_BLOCKED');
    expect(error.status).toBe(403);
    expect(error.message).toBe('Request address is not in the partner IP whitelist (192.0.2.1)');
  });

  it('refuses a missing, malformed or seconds timestamp before looking at the signature', () => {
    const { auth } = setup();
    expect(refusal(() => auth({ ...request(), timestamp: undefined })).message).toBe(AUTH_MESSAGES.missingTimestamp);
    expect(refusal(() => auth(request({ timestamp: '2026-01-15T12:00:00Z' }))).message).toBe(AUTH_MESSAGES.badTimestamp);
    expect(refusal(() => auth(request({ timestamp: '-1' }))).message).toBe(AUTH_MESSAGES.badTimestamp);
    // spec §5.2: "using seconds for the timestamp", sent and signed
    const seconds = refusal(() => auth(request({ timestamp: String(NOW / 1000) })));
    expect(seconds.message).toBe('svc-timestamp looks like seconds; it must be Unix time in milliseconds');
  });

  it('refuses a stale or future timestamp beyond the allowed skew, saying by how much; at the limit it passes', () => {
    const { auth } = setup();
    expect(auth(request({ timestamp: String(NOW - SKEW_MS) })).kind).toBe('secret');
    expect(auth(request({ timestamp: String(NOW + SKEW_MS) })).kind).toBe('secret');
    const stale = refusal(() => auth(request({ timestamp: String(NOW - SKEW_MS - 1_000) })));
    expect(stale.code).toBe('E_UNAUTHORIZED');
    expect(stale.message).toBe("svc-timestamp is 301 s in the past; allowed skew is ±300 s of the server's wall clock");
    const future = refusal(() => auth(request({ timestamp: String(NOW + 3_600_000) })));
    expect(future.message).toBe("svc-timestamp is 3600 s in the future; allowed skew is ±300 s of the server's wall clock");
  });

  it('measures the skew on the wall clock, not on any virtual time', () => {
    const { auth, wall } = setup();
    const req = request();
    wall.advance(SKEW_MS + 1_000);
    expect(refusal(() => auth(req)).message).toMatch(/^svc-timestamp is 301 s in the past/);
  });

  it('refuses a missing or malformed signature, the malformed one with the hint', () => {
    const { auth } = setup();
    expect(refusal(() => auth({ ...request(), signature: undefined })).message).toBe(AUTH_MESSAGES.missingSignature);
    const req = request();
    const upper = { ...req, signature: `sha256=${req.signature!.slice(7).toUpperCase()}` };
    const error = refusal(() => auth(upper));
    expect(error.message).toBe(AUTH_MESSAGES.badSignatureFormat);
    expect(error.headers['svc-sandbox-hint']).toBe(expectedHint(upper));
    expect(refusal(() => auth({ ...req, signature: req.signature!.slice(7) })).message).toBe(AUTH_MESSAGES.badSignatureFormat);
  });

  // Spec §5.2 "known mistakes", and the keys of CONTRACT §3: each is named in the 401's message.
  const mistakes: Array<[string, () => AuthRequest, string]> = [
    [
      'signing with the sk_* key instead of the enc_* key',
      () => request({}, { key: ACME.test.secret_key }),
      'signed with the secret key; sign with the enc_* key',
    ],
    [
      "signing with the other environment's enc_* key",
      () => request({}, { key: ACME.live.encryption_key }),
      'signed with the live encryption key; a test secret key needs the test enc_* key',
    ],
    [
      'signing a live request with the test enc_* key',
      () => request({ env: 'live' }, { key: ACME.test.encryption_key }),
      'signed with the test encryption key; a live secret key needs the live enc_* key',
    ],
    [
      'signing the path without /v1',
      () => request({}, { path: '/orders?include=timeline' }),
      'the signed path omits /v1; sign the full path including /v1',
    ],
    [
      'signing the path without its query string',
      () => request({}, { path: '/v1/orders' }),
      'the signed path omits the query string; sign the path with its query string',
    ],
    [
      'signing a re-serialised body (key order changed)',
      () => request({ body: '{ "b": 1, "a": [1, 2] }' }, { body: '{"b":1,"a":[1,2]}' }),
      'the signed body differs from the bytes sent (re-serialised JSON?); sign the exact body string',
    ],
    [
      'signing the timestamp in seconds while sending milliseconds',
      () => request({}, { timestamp: String(NOW / 1000) }),
      'signed with a timestamp in seconds; sign the same millisecond value sent in svc-timestamp',
    ],
  ];
  for (const [mistake, make, diagnosis] of mistakes) {
    it(`names the mistake of ${mistake} in the 401, with the hint of the canonical string`, () => {
      const { auth } = setup();
      const req = make();
      const error = refusal(() => auth(req));
      expect(error.code).toBe('E_UNAUTHORIZED');
      expect(error.status).toBe(401);
      expect(error.message).toBe(`Invalid signature: ${diagnosis}`);
      expect(error.headers).toEqual({ 'svc-sandbox-hint': expectedHint(req) });
    });
  }

  it('answers a signature that matches no known mistake with "Invalid signature" alone and the hint', () => {
    const { auth } = setup();
    const req = request({}, { body: '{"b":2,"a":[1,2]}' });
    const error = refusal(() => auth(req));
    expect(error.message).toBe('Invalid signature');
    expect(error.headers['svc-sandbox-hint']).toBe(expectedHint(req));
  });

  it('does not diagnose a canonical string signed with another client id: the hint shows the one it used', () => {
    const { auth } = setup();
    const req = request({}, { clientId: 'ptr_other' });
    const error = refusal(() => auth(req));
    expect(error.message).toBe('Invalid signature');
    expect(decodeURIComponent(/prefix=([^;]*)/.exec(error.headers['svc-sandbox-hint']!)![1]!)).toBe(
      `ptr_acme|${NOW}|POST|/v1/orders?include=timeline|`,
    );
  });

  it('never puts a key in the hint', () => {
    const { auth } = setup();
    const error = refusal(() => auth(request({}, { key: ACME.test.secret_key })));
    const hint = error.headers['svc-sandbox-hint']!;
    for (const key of [...Object.values(ACME.test), ...Object.values(ACME.live)]) expect(hint).not.toContain(key);
  });
});
