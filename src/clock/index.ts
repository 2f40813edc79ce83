export * from './clock';
export * from './virtual-clock';
export * from './duration';
