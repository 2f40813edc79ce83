// Partners: create, settings (KYB, webhook URL, events, IP whitelist), key rotation. Full keys
// are shown only in the answer that makes them (creation, rotation), as the API gives them.
import { useEffect, useState } from 'preact/hooks';
import { patch, post } from './api.js';
import { useMeta } from './meta.js';
import { usePartners } from './orders.js';
import { ReadinessSummary } from './readiness.js';
import { go, hashOf } from './router.js';
import { Copyable, ErrorBox, html, Input, link, Section, Select, useAction } from './ui.js';
/** @import { FieldEvent } from './ui.js' */
/** @import { Environment, KeyRotation, KeySet, Partner, PartnerBody, RotateKeysBody } from './types' */

/**
 * Key sets in full, by environment.
 * @param {{ keys: Record<string, KeySet>, title: string }} props
 */
function Keys({ keys, title }) {
  return html`<div class="keys" data-testid="new-keys" role="status"><strong>${title}</strong> <span class="muted small">the secrets are also under Get started (Reveal), or GET /sandbox/partners/{client_id}/keys</span>
    ${Object.entries(keys).map(
      ([env, set]) => html`<div class="keyset"><span class="label">${env}</span>
      ${Object.entries(set).map(([k, v]) => html`<div><span class="muted small">${k}</span> <${Copyable} value=${v} label=${`the new ${env} ${k.replace('_', ' ')}`} /></div>`)}</div>`,
    )}</div>`;
}

/** Partners, and the settings of the one in the URL (`#/partners/{client_id}`), else the first. @param {{ selected?: string }} props */
export function PartnersScreen({ selected }) {
  const partners = usePartners();
  const list = partners.data ?? [];
  const current = list.find((p) => p.client_id === selected) ?? list[0];
  return html`<div class="screen">
    <div class="screen-head"><h1>Partners</h1><${CreatePartner} onCreated=${(/** @type {Partner} */ p) => {
      partners.reload();
      go(hashOf('partners', p.client_id), { replace: true });
    }} /></div>
    <div class="columns partners">
      <div class="col-main">
        <${Section} title="Every partner" id="partners-list">
          <${ErrorBox} error=${partners.error} />
          <table class="list cards" data-testid="partners">
            <thead><tr><th>Name</th><th>Client id</th><th>KYB</th><th>Webhook URL</th><th>Events</th><th>IP whitelist</th><th>Readiness</th></tr></thead>
            <tbody>${list.map(
              (
                p,
              ) => html`<tr key=${p.client_id} class=${current?.client_id === p.client_id ? 'selected' : ''} aria-current=${current?.client_id === p.client_id ? 'true' : undefined}>
              <td class="key" data-label="Name"><a href=${link('partners', p.client_id)}>${p.name}</a></td>
              <td data-label="Client id"><${Copyable} value=${p.client_id} label=${`the client id of ${p.name}`} /></td>
              <td data-label="KYB"><span class=${`status kyb-${p.kyb_status}`}>${p.kyb_status}</span></td>
              <td class="mono small break" data-label="Webhook URL">${p.webhook_url ?? html`<span class="muted">none</span>`}</td><td class="num" data-label="Events">${p.events.length}</td>
              <td class="small" data-label="IP whitelist">${p.ip_whitelist.join(', ') || html`<span class="muted">any</span>`}</td>
              <td class="small" data-label="Readiness"><a href=${link('readiness', p.client_id)} aria-label=${`Readiness runs of ${p.name}`}>Runs →</a></td></tr>`,
            )}</tbody>
          </table>
        </${Section}>
      </div>
      <div class="col-side">${current ? html`<${Settings} key=${current.client_id} partner=${current} onSaved=${() => partners.reload()} /><${ReadinessSummary} key=${`r-${current.client_id}`} clientId=${current.client_id} name=${current.name} />` : null}</div>
    </div>
  </div>`;
}

/**
 * The settings form of a partner, as typed (events: the ones ticked).
 * @typedef {{ kyb_status: string, webhook_url: string, events: Set<string>, ip_whitelist: string }} SettingsForm
 */

/** @param {{ partner: Partner, onSaved: () => void }} props */
function Settings({ partner, onSaved }) {
  const meta = useMeta();
  const [form, setForm] = useState(
    /** @returns {SettingsForm} */ () => ({
      kyb_status: partner.kyb_status,
      webhook_url: partner.webhook_url ?? '',
      events: new Set(partner.events),
      ip_whitelist: partner.ip_whitelist.join('\n'),
    }),
  );
  useEffect(() => setForm((f) => ({ ...f, kyb_status: partner.kyb_status })), [partner.kyb_status]);
  const [rotated, setRotated] = useState(/** @type {KeyRotation | undefined} */ (undefined));
  const action = useAction();
  /** @param {Event} e */
  const save = (e) => {
    e.preventDefault();
    /** @type {PartnerBody} */
    const body = {
      kyb_status: form.kyb_status,
      webhook_url: form.webhook_url.trim() || null,
      events: (meta?.events ?? []).filter((ev) => form.events.has(ev)),
      ip_whitelist: form.ip_whitelist.split(/[\s,]+/).filter(Boolean),
    };
    action.run('saved', async () => {
      const saved = await patch(`/sandbox/partners/${partner.client_id}`, body);
      onSaved();
      return saved;
    });
  };
  /** @param {Environment} environment */
  const rotate = (environment) => {
    // Rotation revokes the current set at once: a partner's running test would start failing.
    if (!confirm(`Rotate the ${environment} keys of ${partner.name}? The current ${environment} set stops working at once.`)) return;
    /** @type {RotateKeysBody} */
    const body = { environment };
    return action.run(`Rotated the ${environment} keys of ${partner.name}: the previous set no longer works`, async () => {
      /** @type {KeyRotation} */
      const r = await post(`/sandbox/partners/${partner.client_id}/keys`, body);
      setRotated(r);
      // The keys shown (masked) are the new ones.
      onSaved();
      return r;
    });
  };
  /** @param {string} ev */
  const toggle = (ev) => {
    const events = new Set(form.events);
    if (events.has(ev)) events.delete(ev);
    else events.add(ev);
    setForm({ ...form, events });
  };
  return html`<${Section} title=${`Settings of ${partner.name}`} id="partner-settings">
    <form class="stack" onSubmit=${save}>
      <${Select} label="KYB status" name="kyb_status" value=${form.kyb_status} onChange=${(/** @type {string} */ v) => setForm({ ...form, kyb_status: v })} options=${meta?.kyb ?? [form.kyb_status]} />
      <${Input} label="Webhook URL" name="webhook_url" value=${form.webhook_url} onInput=${(/** @type {string} */ v) => setForm({ ...form, webhook_url: v })} placeholder="http://127.0.0.1:8080/hooks (empty: none)" />
      <fieldset class="events"><legend>Events sent</legend>
        ${(meta?.events ?? []).map((ev) => html`<label class="check"><input type="checkbox" checked=${form.events.has(ev)} onChange=${() => toggle(ev)} /> <span class="mono small">${ev}</span></label>`)}
      </fieldset>
      <label class="field wide"><span>IP whitelist (IPs or CIDRs; empty: any)</span>
        <textarea name="ip_whitelist" rows="2" value=${form.ip_whitelist} onInput=${(/** @type {FieldEvent} */ e) => setForm({ ...form, ip_whitelist: e.currentTarget.value })}></textarea></label>
      <div class="form-actions"><button class="primary" type="submit" disabled=${action.busy}>Save settings</button>
        ${action.done === 'saved' && !action.error ? html`<span class="ok small">Saved.</span>` : null}</div>
    </form>
    <h3>Keys</h3>
    <div class="keyset-masked" data-testid="keys">${
      /** @type {Array<[Environment, KeySet]>} */ (Object.entries(partner.keys)).map(
        ([env, set]) => html`<div><span class="label">${env}</span>
      <${Copyable} value=${set.public_key} label=${`the ${env} public key`} /> <code class="small">${set.secret_key}</code>
      <button type="button" class="small" data-action=${`rotate-${env}`} onClick=${() => rotate(env)} disabled=${action.busy}>Rotate ${env} keys…</button></div>`,
      )
    }</div>
    ${action.done && !action.error && action.done !== 'saved' ? html`<p class="ok small" data-testid="action-result">${action.done}</p>` : null}
    ${rotated ? html`<${Keys} title=${`New ${rotated.environment} keys; the previous set no longer works`} keys=${{ [rotated.environment]: rotated.keys }} />` : null}
    <${ErrorBox} error=${action.error} />
  </${Section}>`;
}

/** @param {{ onCreated: (partner: Partner) => void }} props */
function CreatePartner({ onCreated }) {
  const meta = useMeta();
  const [open, setOpen] = useState(false);
  const [form, setForm] = useState({ name: '', kyb_status: 'approved', webhook_url: '' });
  const [created, setCreated] = useState(/** @type {Partner | undefined} */ (undefined));
  const action = useAction();
  /** @param {keyof typeof form} key */
  const set = (key) => (/** @type {string} */ value) => setForm({ ...form, [key]: value });
  /** @param {Event} e */
  const submit = async (e) => {
    e.preventDefault();
    /** @type {PartnerBody} */
    const body = { kyb_status: form.kyb_status };
    if (form.name.trim()) body.name = form.name.trim();
    if (form.webhook_url.trim()) body.webhook_url = form.webhook_url.trim();
    const p = await action.run(
      (/** @type {Partner} */ c) => `Created ${c.client_id}: its keys are below`,
      /** @returns {Promise<Partner>} */ () => post('/sandbox/partners', body),
    );
    if (p) {
      setCreated(p);
      onCreated(p);
    }
  };
  if (!open)
    return html`<button type="button" class="primary" data-action="open-new-partner" onClick=${() => setOpen(true)}>New partner…</button>`;
  return html`<${Section} title="New partner" id="new-partner" actions=${html`<button type="button" class="small" onClick=${() => setOpen(false)}>Close</button>`}>
    <form class="form-grid" onSubmit=${submit}>
      <${Input} label="Name" name="name" value=${form.name} onInput=${set('name')} placeholder="Acme Wallet" />
      <${Select} label="KYB status" name="kyb" value=${form.kyb_status} onChange=${set('kyb_status')} options=${meta?.kyb ?? ['approved']} />
      <${Input} label="Webhook URL" name="webhook" value=${form.webhook_url} onInput=${set('webhook_url')} placeholder="http://127.0.0.1:8080/hooks" size="30" />
      <div class="form-actions"><button class="primary" type="submit" disabled=${action.busy}>Create partner</button></div>
    </form>
    ${created ? html`<p>Created <${Copyable} value=${created.client_id} label="the new client id" />.</p><${Keys} title="Keys" keys=${created.keys} />` : null}
    <${ErrorBox} error=${action.error} />
  </${Section}>`;
}
