export * from './redis.js';
export * from './intents.js';
export * from './snapshots.js';
export * from './engineStore.js';
export * from './rateBucket.js';
export * from './pnl.js';
export * from './privateRedis.js';
