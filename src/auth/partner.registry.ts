import { BlockList, isIP } from 'node:net';
import type { KeyObject } from 'node:crypto';
import { addToBlockList } from './ip';
import { signingKeyOf } from './signature';
import {
  KEY_PREFIX,
  type CreatePartnerInput,
  type KeySet,
  type KybStatus,
  type Partner,
  type RevokedKey,
  type UpdatePartnerInput,
} from './partner.schemas';
import { ISO, type Clock } from '../clock';
import type { Environment } from '../reference';
import { conflict, notFound, validationError } from '../shared/errors';
import { WEBHOOK_EVENTS } from '../shared/events';
import { unused, type Ids } from '../shared/ids';

export type KeyKind = RevokedKey['kind'];
export type { CreatePartnerInput, KeySet, KybStatus, Partner, UpdatePartnerInput };

export interface ResolvedKey {
  partner: Partner;
  env: Environment;
  kind: KeyKind;
  revoked: boolean;
}

const FIELD_BY_KIND: Record<KeyKind, keyof KeySet> = {
  public: 'public_key',
  secret: 'secret_key',
  encryption: 'encryption_key',
};

/** Partners and their keys; keys resolve to (partner, environment, kind) in O(1). */
export interface PartnerRegistry {
  create(input: CreatePartnerInput): Partner;
  get(clientId: string): Partner | undefined;
  require(clientId: string): Partner;
  list(): Partner[];
  update(clientId: string, patch: UpdatePartnerInput): Partner;
  /** A new key set for `env`; the previous one is revoked at once. */
  rotate(clientId: string, env: Environment): KeySet;
  resolveKey(key: string): ResolvedKey | undefined;
  /**
   * The partner's `enc_*` key for `env` as a `KeyObject`, made once per key set and kept by this
   * registry (decision 002): the request path signs with it.
   */
  signingKey(partner: Partner, env: Environment): KeyObject;
  /** Whether `ip` may call on behalf of the partner (an empty whitelist allows all). */
  allowsIp(partner: Partner, ip: string): boolean;
  /** Drops every partner but those listed. */
  retainOnly(clientIds: readonly string[]): void;
  /** Partners and their revoked keys, for a state snapshot (CONTRACT §13). */
  exportState(): PartnersState;
  /** Replaces every partner with a snapshot's (validated by the caller). */
  restore(state: PartnersState): void;
}

/** The registry's part of a state snapshot. */
export interface PartnersState {
  partners: Partner[];
  revoked_keys: RevokedKey[];
}

/** Creates the registry; ids (keys, client ids) come from the seeded generator. */
export function createPartnerRegistry(deps: { ids: Ids; clock: Clock }): PartnerRegistry {
  const partners = new Map<string, Partner>();
  const keyIndex = new Map<string, { clientId: string; env: Environment; kind: KeyKind; revoked: boolean }>();
  const blockLists = new Map<string, BlockList>();
  // Keyed by the key set object: a rotation or a restore replaces it, and its entry goes with it.
  const signingKeys = new WeakMap<KeySet, KeyObject>();
  const now = () => ISO(deps.clock.now());

  // A restored document may be behind the sequence: never hand out a key or id in use.
  const freshKey = (prefix: string) =>
    unused(
      () => deps.ids.key(prefix),
      (key) => keyIndex.has(key),
    );
  const newKeySet = (env: Environment): KeySet => ({
    public_key: freshKey(`${KEY_PREFIX.public}_${env}_`),
    secret_key: freshKey(`${KEY_PREFIX.secret}_${env}_`),
    encryption_key: freshKey(`${KEY_PREFIX.encryption}_${env}_`),
  });

  const index = (clientId: string, env: Environment, set: KeySet) => {
    for (const kind of Object.keys(FIELD_BY_KIND) as KeyKind[]) {
      keyIndex.set(set[FIELD_BY_KIND[kind]], { clientId, env, kind, revoked: false });
    }
  };

  const require = (clientId: string) => {
    const p = partners.get(clientId);
    if (!p) throw notFound(`Partner ${clientId} not found`);
    return p;
  };

  const setWhitelist = (clientId: string, list: string[]) => {
    const bl = new BlockList();
    for (const [i, entry] of list.entries()) addToBlockList(bl, entry, `ip_whitelist.${i}`);
    blockLists.set(clientId, bl);
  };

  return {
    create(input) {
      const clientId =
        input.client_id ??
        unused(
          () => deps.ids.id('ptr_'),
          (id) => partners.has(id),
        );
      if (partners.has(clientId)) throw conflict(`Partner ${clientId} already exists`);
      const keys = {
        test: input.keys?.test ?? newKeySet('test'),
        live: input.keys?.live ?? newKeySet('live'),
      };
      for (const env of ['test', 'live'] as const) {
        for (const kind of Object.keys(FIELD_BY_KIND) as KeyKind[]) {
          const key = keys[env][FIELD_BY_KIND[kind]];
          checkKeyPrefix(key, kind, env, `keys.${env}.${FIELD_BY_KIND[kind]}`);
          if (keyIndex.has(key)) throw conflict(`keys.${env}.${FIELD_BY_KIND[kind]} is already in use`);
        }
      }
      const whitelist = input.ip_whitelist ?? [];
      setWhitelist(clientId, whitelist);
      const at = now();
      const partner: Partner = {
        client_id: clientId,
        name: input.name ?? `Partner ${clientId}`,
        kyb_status: input.kyb_status ?? 'approved',
        webhook_url: input.webhook_url ?? null,
        events: input.events ?? [...WEBHOOK_EVENTS],
        ip_whitelist: whitelist,
        keys,
        created_at: at,
        updated_at: at,
      };
      partners.set(clientId, partner);
      index(clientId, 'test', keys.test);
      index(clientId, 'live', keys.live);
      return partner;
    },
    get: (clientId) => partners.get(clientId),
    require,
    list: () => [...partners.values()],
    update(clientId, patch) {
      const p = require(clientId);
      if (patch.ip_whitelist !== undefined) {
        setWhitelist(clientId, patch.ip_whitelist);
        p.ip_whitelist = patch.ip_whitelist;
      }
      if (patch.kyb_status !== undefined) p.kyb_status = patch.kyb_status;
      if (patch.webhook_url !== undefined) p.webhook_url = patch.webhook_url;
      if (patch.events !== undefined) p.events = [...new Set(patch.events)];
      if (patch.name !== undefined) p.name = patch.name;
      p.updated_at = now();
      return p;
    },
    rotate(clientId, env) {
      const p = require(clientId);
      for (const key of Object.values(p.keys[env])) {
        const entry = keyIndex.get(key);
        if (entry) entry.revoked = true;
      }
      const set = newKeySet(env);
      p.keys[env] = set;
      index(clientId, env, set);
      p.updated_at = now();
      return set;
    },
    signingKey(partner, env) {
      const set = partner.keys[env];
      let key = signingKeys.get(set);
      if (key === undefined) signingKeys.set(set, (key = signingKeyOf(set.encryption_key)));
      return key;
    },
    resolveKey(key) {
      const entry = keyIndex.get(key);
      if (!entry) return undefined;
      const partner = partners.get(entry.clientId);
      return partner ? { partner, env: entry.env, kind: entry.kind, revoked: entry.revoked } : undefined;
    },
    allowsIp(partner, ip) {
      if (partner.ip_whitelist.length === 0) return true;
      const bl = blockLists.get(partner.client_id);
      const addr = normaliseIp(ip);
      const family = isIP(addr);
      if (!bl || family === 0) return false;
      return bl.check(addr, family === 4 ? 'ipv4' : 'ipv6');
    },
    exportState() {
      const revoked: PartnersState['revoked_keys'] = [];
      for (const [key, e] of keyIndex) if (e.revoked) revoked.push({ key, client_id: e.clientId, environment: e.env, kind: e.kind });
      return { partners: [...partners.values()].map((p) => structuredClone(p)), revoked_keys: revoked };
    },
    restore(state) {
      partners.clear();
      keyIndex.clear();
      blockLists.clear();
      for (const r of state.revoked_keys) keyIndex.set(r.key, { clientId: r.client_id, env: r.environment, kind: r.kind, revoked: true });
      for (const p of state.partners) {
        const partner = structuredClone(p);
        partners.set(partner.client_id, partner);
        setWhitelist(partner.client_id, partner.ip_whitelist);
        index(partner.client_id, 'test', partner.keys.test);
        index(partner.client_id, 'live', partner.keys.live);
      }
    },
    retainOnly(clientIds) {
      const keep = new Set(clientIds);
      for (const id of [...partners.keys()]) if (!keep.has(id)) partners.delete(id);
      for (const [key, entry] of [...keyIndex]) if (!keep.has(entry.clientId)) keyIndex.delete(key);
      for (const id of [...blockLists.keys()]) if (!keep.has(id)) blockLists.delete(id);
    },
  };
}

/** `::ffff:127.0.0.1` is 127.0.0.1: IPv4 clients on a dual-stack socket. */
function normaliseIp(ip: string): string {
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  return m ? m[1]! : ip;
}

const KEY_BODY = /^[A-Za-z0-9_]{16,128}$/;

/** CONTRACT §8: the right prefix, then 16–128 characters of `[A-Za-z0-9_]`. */
function checkKeyPrefix(key: string, kind: KeyKind, env: Environment, field: string): void {
  const prefix = `${KEY_PREFIX[kind]}_${env}_`;
  if (!key.startsWith(prefix)) throw validationError(field, `must start with ${prefix}`);
  if (!KEY_BODY.test(key.slice(prefix.length))) {
    throw validationError(field, `must be ${prefix} followed by 16-128 characters of [A-Za-z0-9_]`);
  }
}

/** Whether `entry` is an IP address or a CIDR block. */
