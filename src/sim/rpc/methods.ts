import type { MethodTable } from './jsonrpc.js';
import type { RpcEnv } from './params.js';
import { accountMethods } from './accountMethods.js';
import { clusterMethods } from './clusterMethods.js';
import { historyMethods } from './historyMethods.js';
import { txMethods } from './txMethods.js';

/** Every HTTP JSON-RPC method the simulator answers, by name. */
export const rpcMethods: MethodTable<RpcEnv> = Object.freeze({ ...clusterMethods, ...accountMethods, ...txMethods, ...historyMethods });
