export * from './intents.js';
export * from './context.js';
export * from './strategy.js';
