export * from './intents.js';
export * from './context.js';
export * from './strategy.js';
export * from './symbols.js';
// A strategy of the user's own needs only this module: `import { defineStrategy, z } from 'jup-keeper/sdk'`.
export { z } from 'zod';
