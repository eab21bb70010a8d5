// The on-chain side of the API's contract: the product programs' ids, discriminators, argument and account layouts
// and published PDA seeds. The simulator writes these bytes and the pre-sign guard reads them: one definition.
export * from './instruction.js';
export * from './borsh.js';
export * as trigger from './trigger.js';
export * as recurring from './recurring.js';
export * as lend from './lend.js';
export * as prediction from './prediction.js';
export * as predictionAccounts from './predictionAccounts.js';
export * as send from './send.js';
