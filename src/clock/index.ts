export * from './clock';
export * from './iso';
export * from './virtual-clock';
export * from './clock.schemas';
export { nodeSlicing, type HostTimers, type WorkSlicing } from './clock.host';
export * from './duration';
export { inFiringOrder, type TimerFire, type TimerLabel, type TimerTag } from './timer-queue';
export * from './clock.view';
