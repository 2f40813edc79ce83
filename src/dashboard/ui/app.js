// The dashboard (CONTRACT §15): asks for the admin token when the sandbox has one, then shows
// the clock and one screen at a time, chosen by the URL hash (#/orders, #/orders/REF, …).
import { render } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { ApiError, call, onLiveState, onUnauthorized, post, startLive, stopLive, token } from './api.js';
import { ClockBar, useClock } from './clock.js';
import { DeliveriesScreen, DeliveryScreen } from './deliveries.js';
import { InspectorScreen, RequestScreen } from './inspector.js';
import { OrderScreen } from './order-detail.js';
import { OrdersScreen } from './orders.js';
import { PartnersScreen } from './partners.js';
import { ReadinessScreen } from './readiness.js';
import { useRoute } from './router.js';
import { GetStarted } from './start.js';
import { Announcer, faultEffects, faultState, FaultWhen, html, useAction, useFaults } from './ui.js';
/** @import { FieldEvent, Html } from './ui.js' */
/** @import { LiveState } from './types' */

/** Each screen: its hash, its name, and the short name a narrow screen shows. */
const SCREENS = [
  ['orders', 'Orders', 'Orders'],
  ['deliveries', 'Webhook deliveries', 'Deliveries'],
  ['requests', 'Requests & faults', 'Requests'],
  ['partners', 'Partners', 'Partners'],
];
/** @type {Record<string, string>} */
const TITLES = Object.fromEntries([...SCREENS.map(([key, label]) => [key, label]), ['start', 'Get started'], ['readiness', 'Readiness']]);
/**
 * Screens reached from another one, and the tab marked in the top bar for each: a partner's
 * readiness is under Partners.
 * @type {Record<string, string>}
 */
const TAB_OF = { readiness: 'partners' };

/**
 * Asks for the admin token; keeps it for this tab only (sessionStorage).
 * @param {{ onDone: () => void, failed: boolean }} props
 */
function TokenForm({ onDone, failed }) {
  const [value, setValue] = useState('');
  useEffect(() => {
    document.title = 'Admin token · ramp-sandbox';
  }, []);
  return html`<main class="token-gate" id="main">
    <form class="panel token-form" onSubmit=${(/** @type {Event} */ e) => {
      e.preventDefault();
      token.set(value.trim());
      onDone();
    }}>
      <h1>ramp-sandbox</h1>
      <p>This sandbox has an admin token (<code>--admin-token</code>). Enter it to use the dashboard; it is kept for this browser tab only and sent as <code>Authorization: Bearer …</code>.</p>
      ${
        failed
          ? html`<div class="error" role="alert" id="token-error" data-testid="token-refused"><strong>Token refused (401).</strong> The sandbox did not accept that admin token: it is not the one the sandbox was started with (<code>--admin-token</code> or <code>SANDBOX_ADMIN_TOKEN</code>). Try again.</div>`
          : null
      }
      <label class="field wide"><span>Admin token</span>
        <input name="admin-token" type="password" autocomplete="current-password" autofocus aria-invalid=${failed ? 'true' : undefined} aria-describedby=${failed ? 'token-error' : undefined}
          value=${value} onInput=${(/** @type {FieldEvent} */ e) => setValue(e.currentTarget.value)} />
      </label>
      <button class="primary" type="submit" disabled=${!value.trim()}>Open the dashboard</button>
    </form>
  </main>`;
}

/** @type {Record<LiveState, [string, string]>} */
const CONNECTION = {
  connecting: ['connecting…', 'Opening the update stream (GET /sandbox/events)'],
  connected: ['connected', 'The page updates by itself as the sandbox changes (GET /sandbox/events)'],
  reconnecting: [
    'reconnecting…',
    'The update stream ended (the sandbox stopping or restarting?): trying again; what is shown may be out of date',
  ],
  offline: ['offline', 'The sandbox does not answer: what is shown may be out of date, and actions will fail until it is back'],
};

/** The truth about the update stream: connected, reconnecting or offline. */
function Connection() {
  const [state, setState] = useState(/** @type {LiveState} */ ('connecting'));
  useEffect(() => onLiveState(setState), []);
  const [text, title] = CONNECTION[state];
  return html`<span class=${`conn conn-${state}`} data-testid="connection" data-state=${state} title=${title} role="status">
    <span class="conn-dot" aria-hidden="true"></span><span class="sr-only">Sandbox: </span>${text}</span>`;
}

function Reset() {
  const action = useAction();
  return html`<button class="small danger" data-action="reset" disabled=${action.busy} title=${action.error ? action.error.message : 'Drop everything but the demo partner'} onClick=${() => {
    if (confirm('Drop every order, delivery, request, fault and partner but the demo partner, and put the clock back at its start?')) {
      action.run('Sandbox reset: only the demo partner is left, the clock is back at its start', () => post('/sandbox/reset'));
    }
  }}>Reset sandbox</button>`;
}

/**
 * Says so while any fault is injected on /v1: each fault, what it does and its window of virtual
 * time (CONTRACT §22) against the virtual now (waiting, active, over), and that the dashboard's
 * own actions bypass them.
 */
function FaultBanner() {
  const faults = useFaults();
  const { clock } = useClock();
  const list = faults.data ?? [];
  const n = list.length;
  if (!n) return null;
  const now = clock?.now;
  const states = list.map((f) => faultState(f, now));
  const active = states.filter((st) => st === 'active').length;
  return html`<div class="banner" role="region" aria-label="Faults in force" data-testid="fault-banner">
    <strong>${n} fault${n === 1 ? '' : 's'} in force on /v1${active === n ? '' : `, ${active} active now`}</strong>: matching partner requests get injected errors, delays, dropped or reset connections, cut or non-JSON answers.
    The dashboard's own actions go through <code>/sandbox</code> and bypass them.${' '}
    <a href="#/requests">See or remove them</a>
    <ul class="banner-faults">
      ${list.map(
        (f, i) => html`<li key=${f.id} data-fault=${f.id} data-state=${states[i]}>
          <span class="mono">${f.id}</span> <span class="mono">${f.method ?? '*'} ${f.path ?? '/v1/**'}</span>: ${faultEffects(f)}; <${FaultWhen} fault=${f} />${' '}
          <span class=${`pill fault-${states[i]}`}>${states[i] === 'waiting' ? 'not yet' : states[i] === 'over' ? 'over' : 'active'}</span>
        </li>`,
      )}
    </ul>
  </div>`;
}

function Dashboard() {
  const route = useRoute();
  const { screen, id } = route;
  const current = TITLES[screen] ? screen : 'orders';
  const tab = TAB_OF[current] ?? current;
  /** @type {Html} */
  let body;
  if (current === 'orders' && id) body = html`<${OrderScreen} reference=${id} />`;
  else if (current === 'deliveries' && id) body = html`<${DeliveryScreen} id=${id} />`;
  else if (current === 'deliveries') body = html`<${DeliveriesScreen} />`;
  else if (current === 'requests' && id) body = html`<${RequestScreen} id=${id} />`;
  else if (current === 'requests') body = html`<${InspectorScreen} />`;
  else if (current === 'partners') body = html`<${PartnersScreen} selected=${id} />`;
  else if (current === 'readiness') body = html`<${ReadinessScreen} clientId=${id} />`;
  else if (current === 'start') body = html`<div class="screen"><h1>Get started</h1><${GetStarted} /></div>`;
  else body = html`<${OrdersScreen} />`;

  useEffect(() => {
    const what = id
      ? `${id} · ${current === 'orders' ? 'Order' : current === 'deliveries' ? 'Delivery' : current === 'requests' ? 'Request' : current === 'readiness' ? 'Readiness' : 'Partner'}`
      : TITLES[current];
    document.title = `${what} · ramp-sandbox`;
  }, [current, id]);

  // A new screen: focus goes to its content (not for a change of filters or page on the same screen).
  // In the render itself (a layout effect): after the next frame, it could take focus from a
  // control the user has reached since (a slow machine's frames come late).
  const main = useRef(/** @type {HTMLElement | null} */ (null));
  const first = useRef(true);
  useLayoutEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    main.current?.focus({ preventScroll: false });
  }, [current, id]);

  return html`<div class="layout">
    <a class="skip" href="#main" onClick=${(/** @type {Event} */ e) => {
      e.preventDefault();
      main.current?.focus();
    }}>Skip to content</a>
    <header class="topbar">
      <a class="brand" href="#/orders" aria-label="ramp-sandbox: orders">ramp-sandbox</a>
      <nav aria-label="Screens">${SCREENS.map(
        ([key, label, short]) =>
          html`<a href=${`#/${key}`} aria-current=${tab === key ? 'page' : undefined} class=${tab === key ? 'active' : ''}><span class="long">${label}</span><span class="short">${short}</span></a>`,
      )}</nav>
      <div class="topbar-right"><a class=${`start-link ${current === 'start' ? 'active' : ''}`} href="#/start" aria-current=${current === 'start' ? 'page' : undefined}>Get started</a><${Connection} /><${Reset} /></div>
    </header>
    <${ClockBar} />
    <${FaultBanner} />
    <main id="main" tabindex="-1" ref=${main}>${body}</main>
    <${Announcer} />
  </div>`;
}

function App() {
  const [phase, setPhase] = useState(/** @type {'checking' | 'ready' | 'token' | 'down'} */ ('checking'));
  const [failed, setFailed] = useState(false);
  const check = async () => {
    // Read before the call: a 401 clears the token (onUnauthorized) before the catch below runs,
    // which is how a refused token used to show no error (issue 20).
    const sent = Boolean(token.get());
    try {
      await call('GET', '/sandbox/clock');
      setPhase('ready');
      startLive();
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) {
        setFailed(sent);
        token.clear();
        setPhase('token');
      } else {
        setPhase('down');
      }
    }
  };
  useEffect(() => {
    check();
    return onUnauthorized(() => {
      stopLive();
      setFailed(true);
      token.clear();
      setPhase('token');
    });
  }, []);
  if (phase === 'checking')
    return html`<main id="main"><h1 class="sr-only">ramp-sandbox</h1><p class="loading">Connecting to the sandbox…</p></main>`;
  if (phase === 'token') return html`<${TokenForm} failed=${failed} onDone=${check} />`;
  if (phase === 'down') {
    return html`<main class="token-gate" id="main"><div class="panel"><h1>ramp-sandbox</h1><p role="alert">The sandbox did not answer: is it running?</p><button onClick=${check}>Try again</button></div></main>`;
  }
  return html`<${Dashboard} />`;
}

const root = document.getElementById('app');
if (!root) throw new Error('The dashboard page has no #app element');
// The page's "Loading the dashboard…" is not Preact's: it goes before the first render.
root.replaceChildren();
render(html`<${App} />`, root);
