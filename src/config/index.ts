export * from './schema.js';
export * from './load.js';
export * from './env.js';
export * from './duration.js';
