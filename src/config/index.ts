export * from './schema.js';
export * from './load.js';
export * from './errors.js';
export * from './yaml.js';
export * from './env.js';
export * from './duration.js';
