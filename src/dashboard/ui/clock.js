// The virtual clock: now, mode and speed, advance by preset or duration, next timer.
import { useEffect, useState } from 'preact/hooks';
import { get, onLive, post } from './api.js';
import { ErrorBox, html, Time, useAction } from './ui.js';
/** @import { FieldEvent } from './ui.js' */
/** @import { AdvanceBody, AdvanceResult, Clock, ClockBody } from './types' */

/**
 * The clock as last reported, and when (wall ms) it was.
 * @typedef {Clock & { received: number }} ReceivedClock
 */

const PRESETS = ['1m', '5m', '30m', '1h', '1d', '28h'];

/** The clock as last reported, moved on locally in realtime mode (the feed reports changes, not ticks). */
export function useClock() {
  const [clock, setClock] = useState(/** @type {ReceivedClock | undefined} */ (undefined));
  const [, tick] = useState(0);
  useEffect(
    () =>
      onLive(({ event, data }) => {
        if (event === 'clock') setClock({ ...data, received: Date.now() });
      }),
    [],
  );
  useEffect(() => {
    /** @type {Promise<Clock>} */
    const first = get('/sandbox/clock');
    first.then(
      (data) => setClock((c) => c ?? { ...data, received: Date.now() }),
      () => {},
    );
    const t = setInterval(() => tick((n) => n + 1), 1000);
    return () => clearInterval(t);
  }, []);
  if (!clock) return { clock, setClock };
  const now = clock.mode === 'realtime' ? clock.now_ms + (Date.now() - clock.received) * clock.speed : clock.now_ms;
  return { clock: { ...clock, now: new Date(Math.floor(now)).toISOString() }, setClock };
}

export function ClockBar() {
  const { clock, setClock } = useClock();
  const [duration, setDuration] = useState('');
  const [speed, setSpeed] = useState('');
  const action = useAction();
  /** @param {AdvanceResult | Clock | undefined} data */
  const apply = (data) => data && setClock({ ...('clock' in data ? data.clock : data), received: Date.now() });

  /**
   * @param {AdvanceBody} body
   * @param {string} label
   */
  const advance = (body, label) =>
    action.run(label, /** @returns {Promise<AdvanceResult>} */ () => post('/sandbox/clock/advance', body)).then(apply);
  /** @param {ClockBody} body */
  const configure = (body) => action.run('clock updated', /** @returns {Promise<Clock>} */ () => post('/sandbox/clock', body)).then(apply);

  if (!clock) return html`<div class="clockbar muted" aria-label="Virtual clock" role="region">Clock…</div>`;
  const nextTimer = clock.next_timer_at;
  return html`<section class="clockbar" data-testid="clock" aria-label="Virtual clock">
    <div class="clock-now">
      <span class="label">Virtual now</span>
      <strong class="now" data-testid="clock-now"><${Time} iso=${clock.now} /></strong>
      <span class=${`pill ${clock.mode}`}>${clock.mode}${clock.mode === 'realtime' ? ` ×${clock.speed}` : ''}</span>
      <span class="muted small">${clock.pending_timers} timer${clock.pending_timers === 1 ? '' : 's'} pending${clock.next_timer_at ? html`, next <${Time} iso=${clock.next_timer_at} />` : ''}</span>
    </div>
    <div class="clock-controls">
      <span class="label">Advance</span>
      ${PRESETS.map((d) => html`<button type="button" class="small" data-action=${`advance-${d}`} disabled=${action.busy} onClick=${() => advance({ duration: d }, `advanced ${d}`)}>+${d}</button>`)}
      ${
        nextTimer
          ? html`<button class="small" disabled=${action.busy} title="Advance to the next pending timer" onClick=${() => advance({ to: nextTimer }, 'advanced to the next timer')}>next timer</button>`
          : null
      }
      <form class="inline" onSubmit=${(/** @type {Event} */ e) => {
        e.preventDefault();
        if (duration.trim()) advance({ duration: duration.trim() }, `advanced ${duration}`);
      }}>
        <input name="duration" aria-label="Duration to advance" placeholder="1h30m" size="7" value=${duration} onInput=${(/** @type {FieldEvent} */ e) => setDuration(e.currentTarget.value)} />
        <button class="small" type="submit" disabled=${action.busy}>Advance</button>
      </form>
      <span class="sep"></span>
      <button class="small" disabled=${action.busy} onClick=${() => configure({ mode: clock.mode === 'manual' ? 'realtime' : 'manual' })}>
        ${clock.mode === 'manual' ? 'Run in real time' : 'Switch to manual'}
      </button>
      <form class="inline" onSubmit=${(/** @type {Event} */ e) => {
        e.preventDefault();
        if (speed) configure({ speed: Number(speed) });
      }}>
        <input name="speed" aria-label="Speed" type="number" min="0.001" step="any" placeholder=${`×${clock.speed}`} size="5" value=${speed} onInput=${(/** @type {FieldEvent} */ e) => setSpeed(e.currentTarget.value)} />
        <button class="small" type="submit" disabled=${action.busy}>Set speed</button>
      </form>
      ${action.busy ? html`<span class="muted small">working…</span>` : null}
    </div>
    <${ErrorBox} error=${action.error} />
  </section>`;
}
