import type { Partner } from '../../src/auth';

/** An approved partner with placeholder keys and no webhook URL, for tests of the orders module. */
export function testPartner(clientId: string, at: number): Partner {
  const set = (env: string) => ({ public_key: `pk_${env}_x`, secret_key: `sk_${env}_x`, encryption_key: `enc_${env}_x` });
  const iso = new Date(at).toISOString();
  return {
    client_id: clientId,
    name: clientId,
    kyb_status: 'approved',
    webhook_url: null,
    events: [],
    ip_whitelist: [],
    keys: { test: set('test'), live: set('live') },
    created_at: iso,
    updated_at: iso,
  };
}
