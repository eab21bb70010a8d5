export { registerLookupCommands } from './lookups.js';
export { registerQuoteCommand } from './quote.js';
export { registerTokenCommands } from './tokens.js';
export { registerPredictionCommands } from './prediction.js';
export { registerOrderCommands, fetchOpenOrders, type OpenOrders } from './orders.js';
export { withJson, type JsonFlag } from './shared.js';
