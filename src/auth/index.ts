export * from './signature';
export * from './partner.registry';
export * from './rate-limit';
export * from './authenticate';
export * from './sign-request';
export * from './partner.schemas';
export * from './partner.view';
