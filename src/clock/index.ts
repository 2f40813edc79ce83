export * from './clock';
export * from './virtual-clock';
export * from './duration';
export type { TimerTag } from './timer-queue';
export * from './clock.view';
