export * from './wallet.js';
export * from './rpc.js';
export * from './guard.js';
export * from './programs.js';
