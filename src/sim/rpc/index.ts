export { dispatchJsonRpc, method, RpcCode, RpcError, serialize, type MethodTable, type RpcMethod } from './jsonrpc.js';
export { rpcMethods } from './methods.js';
export { PubSubHub, type PubSubConnection, type PubSubPeer } from './pubsub.js';
export { SOLANA_CORE_VERSION, type RpcEnv } from './params.js';
