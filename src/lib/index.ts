export * from './errors.js';
export * from './amounts.js';
export * from './time.js';
export * from './retry.js';
export * from './logger.js';
export * from './mints.js';
export * from './json.js';
