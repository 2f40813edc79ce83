// CONTRACT §21: is a partner's integration ready to go live? Runs, probes, checks and reports.
export * from './check';
export * from './checks.client';
export * from './checks.receiver';
export * from './facts';
export * from './report';
export * from './runs';
export * from './readiness.schemas';
export * from './readiness.routes';
export * from './render';
