export * from './args.js';
export * from './context.js';
export * from './errors.js';
export * from './format.js';
export * from './output.js';
export * from './program.js';
export * from './commands/index.js';
