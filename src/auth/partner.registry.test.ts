import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../clock';
import { WEBHOOK_EVENTS } from '../shared/events';
import { createIds } from '../shared/ids';
import { createPartnerRegistry, type KeySet } from './partner.registry';
import { refusal } from '../../test/support/refusal';

// CONTRACT §4 and §8: partners, their keys (prefixes checked), rotation, reset and snapshots.

const T0 = Date.UTC(2026, 0, 15, 12, 0, 0);

function makeRegistry(seed = 1) {
  const clock = new VirtualClock({ start: T0, mode: 'manual' });
  const partners = createPartnerRegistry({ ids: createIds(seed), clock });
  return { clock, partners };
}

/** A hand-made key set for `env` (`tag` keeps sets apart). */
const keySet = (env: 'test' | 'live', tag = 'a'): KeySet => ({
  public_key: `pk_${env}_${tag.repeat(20)}`,
  secret_key: `sk_${env}_${tag.repeat(20)}`,
  encryption_key: `enc_${env}_${tag.repeat(20)}`,
});

describe('createPartnerRegistry', () => {
  it('creates a partner with a generated client id, defaults, and a prefixed key set per environment', () => {
    const { partners } = makeRegistry();
    const p = partners.create({ name: 'Acme' });
    expect(p.client_id).toMatch(/^ptr_[A-Za-z0-9]{20}$/);
    expect(p).toMatchObject({
      name: 'Acme',
      kyb_status: 'approved',
      webhook_url: null,
      ip_whitelist: [],
      created_at: new Date(T0).toISOString(),
      updated_at: new Date(T0).toISOString(),
    });
    expect(p.events).toEqual([...WEBHOOK_EVENTS]);
    for (const env of ['test', 'live'] as const) {
      expect(p.keys[env].public_key).toMatch(new RegExp(`^pk_${env}_[A-Za-z0-9]{32}$`));
      expect(p.keys[env].secret_key).toMatch(new RegExp(`^sk_${env}_[A-Za-z0-9]{32}$`));
      expect(p.keys[env].encryption_key).toMatch(new RegExp(`^enc_${env}_[A-Za-z0-9]{32}$`));
    }
    expect(partners.get(p.client_id)).toBe(p);
    expect(partners.require(p.client_id)).toBe(p);
    expect(partners.list()).toEqual([p]);
  });

  it('resolves each key to its partner, environment and kind, not revoked; an unknown key to nothing', () => {
    const { partners } = makeRegistry();
    const p = partners.create({ client_id: 'ptr_one', keys: { test: keySet('test'), live: keySet('live') } });
    expect(partners.resolveKey(`sk_live_${'a'.repeat(20)}`)).toEqual({ partner: p, env: 'live', kind: 'secret', revoked: false });
    expect(partners.resolveKey(`pk_test_${'a'.repeat(20)}`)).toEqual({ partner: p, env: 'test', kind: 'public', revoked: false });
    expect(partners.resolveKey(`enc_test_${'a'.repeat(20)}`)).toEqual({ partner: p, env: 'test', kind: 'encryption', revoked: false });
    expect(partners.resolveKey(`sk_test_${'b'.repeat(20)}`)).toBeUndefined();
  });

  it('refuses a client id that exists with a 409, leaving the first partner as it was', () => {
    const { partners } = makeRegistry();
    const first = partners.create({ client_id: 'ptr_dup', name: 'First' });
    const error = refusal(() => partners.create({ client_id: 'ptr_dup', name: 'Second' }));
    expect(error.code).toBe('E_CONFLICT');
    expect(error.status).toBe(409);
    expect(error.message).toBe('Partner ptr_dup already exists');
    expect(partners.list()).toEqual([first]);
    expect(partners.get('ptr_dup')?.name).toBe('First');
  });

  it("takes a caller's key sets when each key has its kind's and environment's prefix", () => {
    const { partners } = makeRegistry();
    const p = partners.create({ client_id: 'ptr_keys', keys: { test: keySet('test', 'x') } });
    expect(p.keys.test).toEqual(keySet('test', 'x'));
    expect(p.keys.live.secret_key).toMatch(/^sk_live_/); // the set not given is generated
  });

  it('refuses a key with the wrong prefix, environment or body as a 422 naming the field, storing nothing', () => {
    const { partners } = makeRegistry();
    const cases: Array<[KeySet, string]> = [
      [{ ...keySet('test'), public_key: `sk_test_${'a'.repeat(20)}` }, 'keys.test.public_key: must start with pk_test_'],
      [{ ...keySet('test'), secret_key: `sk_live_${'a'.repeat(20)}` }, 'keys.test.secret_key: must start with sk_test_'],
      [
        { ...keySet('test'), encryption_key: 'enc_test_short' },
        'keys.test.encryption_key: must be enc_test_ followed by 16-128 characters of [A-Za-z0-9_]',
      ],
      [
        { ...keySet('test'), encryption_key: `enc_test_${'a'.repeat(19)}!` },
        'keys.test.encryption_key: must be enc_test_ followed by 16-128 characters of [A-Za-z0-9_]',
      ],
    ];
    for (const [test, message] of cases) {
      const error = refusal(() => partners.create({ client_id: 'ptr_bad', keys: { test } }));
      expect(error.code).toBe('E_VALIDATION_ERROR');
      expect(error.message).toBe(message);
    }
    const live = refusal(() => partners.create({ client_id: 'ptr_bad', keys: { live: keySet('test') } }));
    expect(live.message).toBe('keys.live.public_key: must start with pk_live_');
    expect(partners.list()).toEqual([]);
  });

  it('refuses a key another partner holds with a 409, so a key always resolves to one partner', () => {
    const { partners } = makeRegistry();
    const owner = partners.create({ client_id: 'ptr_owner', keys: { test: keySet('test') } });
    const error = refusal(() => partners.create({ client_id: 'ptr_thief', keys: { test: keySet('test') } }));
    expect(error.code).toBe('E_CONFLICT');
    expect(error.message).toBe('keys.test.public_key is already in use');
    expect(partners.get('ptr_thief')).toBeUndefined();
    expect(partners.resolveKey(keySet('test').secret_key)?.partner).toBe(owner);
  });

  it("keeps each key set's signing KeyObject per registry: one per set, a new one after a rotation", () => {
    const { partners } = makeRegistry();
    const p = partners.create({ client_id: 'ptr_sig' });
    const first = partners.signingKey(p, 'test');
    expect(partners.signingKey(p, 'test')).toBe(first);
    expect(first.export().toString('utf8')).toBe(p.keys.test.encryption_key);
    expect(partners.signingKey(p, 'live').export().toString('utf8')).toBe(p.keys.live.encryption_key);
    partners.rotate('ptr_sig', 'test');
    const second = partners.signingKey(p, 'test');
    expect(second).not.toBe(first);
    expect(second.export().toString('utf8')).toBe(p.keys.test.encryption_key);
    // Another registry (another sandbox in the process) makes its own, sharing nothing.
    const other = makeRegistry().partners;
    const twin = other.create({ client_id: 'ptr_sig', keys: { test: p.keys.test } });
    expect(other.signingKey(twin, 'test')).not.toBe(second);
  });

  it('rotates one environment: a new set, the previous set revoked at once and still resolving as revoked', () => {
    const { clock, partners } = makeRegistry();
    const p = partners.create({ client_id: 'ptr_rot' });
    const before = { ...p.keys.test };
    const live = { ...p.keys.live };
    clock.advance(60_000);
    const fresh = partners.rotate('ptr_rot', 'test');
    expect(fresh).toEqual(p.keys.test);
    for (const kind of ['public_key', 'secret_key', 'encryption_key'] as const) {
      expect(fresh[kind]).not.toBe(before[kind]);
      expect(partners.resolveKey(before[kind])).toMatchObject({ partner: p, env: 'test', revoked: true });
      expect(partners.resolveKey(fresh[kind])).toMatchObject({ partner: p, env: 'test', revoked: false });
      expect(partners.resolveKey(live[kind])).toMatchObject({ env: 'live', revoked: false });
    }
    expect(partners.resolveKey(before.secret_key)?.kind).toBe('secret');
    expect(p.keys.live).toEqual(live);
    expect(p.updated_at).toBe(new Date(T0 + 60_000).toISOString());
    // A second rotation revokes the set the first one made; the first set stays revoked.
    partners.rotate('ptr_rot', 'test');
    expect(partners.resolveKey(fresh.secret_key)?.revoked).toBe(true);
    expect(partners.resolveKey(before.secret_key)?.revoked).toBe(true);
    expect(refusal(() => partners.rotate('ptr_nobody', 'test')).code).toBe('E_NOTFOUND');
  });

  it('never hands out a revoked key again: a caller cannot create a partner with one', () => {
    const { partners } = makeRegistry();
    partners.create({ client_id: 'ptr_old', keys: { test: keySet('test') } });
    partners.rotate('ptr_old', 'test');
    const error = refusal(() => partners.create({ client_id: 'ptr_new', keys: { test: keySet('test') } }));
    expect(error.code).toBe('E_CONFLICT');
  });

  it('keeps only the partners listed on retainOnly: the others and every key of theirs are gone', () => {
    const { partners } = makeRegistry();
    const kept = partners.create({ client_id: 'ptr_keep', keys: { test: keySet('test', 'k') } });
    const dropped = partners.create({ client_id: 'ptr_drop', keys: { test: keySet('test', 'd') }, ip_whitelist: ['10.0.0.1'] });
    partners.rotate('ptr_keep', 'test');
    partners.rotate('ptr_drop', 'test');
    const droppedCurrent = dropped.keys.test.secret_key;
    partners.retainOnly(['ptr_keep']);
    expect(partners.list()).toEqual([kept]);
    expect(partners.get('ptr_drop')).toBeUndefined();
    expect(partners.resolveKey(droppedCurrent)).toBeUndefined();
    expect(partners.resolveKey(keySet('test', 'd').secret_key)).toBeUndefined();
    // The kept partner's revoked set still answers "revoked".
    expect(partners.resolveKey(keySet('test', 'k').secret_key)).toMatchObject({ partner: kept, revoked: true });
    expect(partners.resolveKey(kept.keys.test.secret_key)).toMatchObject({ partner: kept, revoked: false });
    // The dropped partner's id and keys are free again.
    expect(partners.create({ client_id: 'ptr_drop', keys: { test: keySet('test', 'd') } }).client_id).toBe('ptr_drop');
  });

  it('exports partners and revoked keys, and a fresh registry restored from the export answers the same', () => {
    const { clock, partners } = makeRegistry(5);
    const a = partners.create({
      client_id: 'ptr_a',
      name: 'A',
      webhook_url: 'http://hooks.example/a',
      events: ['order.created'],
      ip_whitelist: ['10.1.0.0/16'],
    });
    partners.create({ client_id: 'ptr_b', name: 'B', kyb_status: 'pending' });
    const revoked = { ...a.keys.live };
    partners.rotate('ptr_a', 'live');
    const exported = partners.exportState();
    expect(exported.partners.map((p) => p.client_id)).toEqual(['ptr_a', 'ptr_b']);
    expect(exported.revoked_keys).toEqual([
      { key: revoked.public_key, client_id: 'ptr_a', environment: 'live', kind: 'public' },
      { key: revoked.secret_key, client_id: 'ptr_a', environment: 'live', kind: 'secret' },
      { key: revoked.encryption_key, client_id: 'ptr_a', environment: 'live', kind: 'encryption' },
    ]);
    // The export is a copy: changing it changes nothing in the registry.
    exported.partners[0]!.name = 'changed';
    expect(partners.get('ptr_a')?.name).toBe('A');
    exported.partners[0]!.name = 'A';

    const other = createPartnerRegistry({ ids: createIds(99), clock });
    other.create({ client_id: 'ptr_gone' });
    other.restore(structuredClone(exported));
    expect(other.exportState()).toEqual(exported);
    expect(other.get('ptr_gone')).toBeUndefined();
    expect(other.resolveKey(revoked.secret_key)).toMatchObject({ env: 'live', kind: 'secret', revoked: true });
    expect(other.resolveKey(a.keys.live.secret_key)).toMatchObject({ env: 'live', kind: 'secret', revoked: false });
    expect(other.resolveKey(a.keys.test.encryption_key)?.partner.client_id).toBe('ptr_a');
    // The whitelist is rebuilt from the record, not only copied.
    const restoredA = other.require('ptr_a');
    expect(other.allowsIp(restoredA, '10.1.200.3')).toBe(true);
    expect(other.allowsIp(restoredA, '10.2.0.1')).toBe(false);
  });

  it('allows every address with an empty whitelist, and only listed addresses and blocks otherwise', () => {
    const { partners } = makeRegistry();
    const open = partners.create({ client_id: 'ptr_open' });
    expect(partners.allowsIp(open, '203.0.113.9')).toBe(true);
    const p = partners.create({ client_id: 'ptr_ip', ip_whitelist: ['198.51.100.7', '10.0.0.0/8', '2001:db8::/32'] });
    expect(partners.allowsIp(p, '198.51.100.7')).toBe(true);
    expect(partners.allowsIp(p, '198.51.100.8')).toBe(false);
    expect(partners.allowsIp(p, '10.255.3.4')).toBe(true);
    expect(partners.allowsIp(p, '11.0.0.1')).toBe(false);
    expect(partners.allowsIp(p, '2001:db8:1::5')).toBe(true);
    expect(partners.allowsIp(p, '2001:db9::5')).toBe(false);
    // IPv4 clients on a dual-stack socket arrive as ::ffff:a.b.c.d.
    expect(partners.allowsIp(p, '::ffff:198.51.100.7')).toBe(true);
    expect(partners.allowsIp(p, 'not-an-ip')).toBe(false);
  });

  it('replaces the whitelist on update, and refuses an entry that is not an IP or CIDR block', () => {
    const { partners } = makeRegistry();
    const p = partners.create({ client_id: 'ptr_up', ip_whitelist: ['192.0.2.1'] });
    partners.update('ptr_up', { ip_whitelist: ['192.0.2.2'] });
    expect(p.ip_whitelist).toEqual(['192.0.2.2']);
    expect(partners.allowsIp(p, '192.0.2.1')).toBe(false);
    expect(partners.allowsIp(p, '192.0.2.2')).toBe(true);
    partners.update('ptr_up', { ip_whitelist: [] });
    expect(partners.allowsIp(p, '192.0.2.1')).toBe(true);
    const bad = refusal(() => partners.create({ client_id: 'ptr_badip', ip_whitelist: ['192.0.2.1', '10.0.0.0/33'] }));
    expect(bad.code).toBe('E_VALIDATION_ERROR');
    expect(bad.message).toBe('ip_whitelist.1: 10.0.0.0/33 has a bad prefix length');
    expect(partners.get('ptr_badip')).toBeUndefined();
    partners.update('ptr_up', { ip_whitelist: ['192.0.2.2'] });
    expect(refusal(() => partners.update('ptr_up', { ip_whitelist: ['example.com'] })).message).toBe(
      'ip_whitelist.0: example.com is not an IP address or CIDR block',
    );
    expect(p.ip_whitelist).toEqual(['192.0.2.2']);
    expect(partners.allowsIp(p, '192.0.2.1')).toBe(false);
  });
});
