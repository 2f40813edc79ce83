export * from './clock';
export * from './iso';
export * from './virtual-clock';
export * from './duration';
export type { TimerTag } from './timer-queue';
export * from './clock.view';
