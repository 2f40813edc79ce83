import type { KeySet, Partner } from './partner.schemas';

/** A partner as the control API shows it: full keys only where they are created. */
export function partnerView(p: Partner, mask = false): Partner {
  const keys = (set: KeySet) =>
    mask ? { public_key: set.public_key, secret_key: maskKey(set.secret_key), encryption_key: maskKey(set.encryption_key) } : { ...set };
  return {
    client_id: p.client_id,
    name: p.name,
    kyb_status: p.kyb_status,
    webhook_url: p.webhook_url,
    events: p.events,
    ip_whitelist: p.ip_whitelist,
    keys: { test: keys(p.keys.test), live: keys(p.keys.live) },
    created_at: p.created_at,
    updated_at: p.updated_at,
  };
}

/** `sk_test_****wxyz`: the prefix and the last four characters. */
function maskKey(key: string): string {
  const prefix = /^[a-z]+_(?:test|live)_/.exec(key)?.[0] ?? '';
  return `${prefix}****${key.slice(-4)}`;
}
