export * from './client.js';
export * from './transport.js';
export * from './errors.js';
export * from './rateBudget.js';
export * from './schemas.js';
