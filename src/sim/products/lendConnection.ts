import { Connection } from '@solana/web3.js';
import { silentLogger } from '../../lib/logger.js';
// The dispatcher and the method table themselves, not the rpc folder's index: that also exports the PubSub hub,
// whose context is the simulator's state, which holds this desk (an import cycle).
import { dispatchJsonRpc } from '../rpc/jsonrpc.js';
import { rpcMethods } from '../rpc/methods.js';
import type { Venue } from '../venue.js';

/**
 * A web3.js Connection whose requests the simulator's own JSON-RPC methods answer in-process: the SDK's builders
 * read the chain through it exactly as they would read a validator (they ask for the asset mint's owner).
 */
export function chainConnection(venue: Venue): Connection {
  const env = { venue, logger: silentLogger };
  const onInternalError = (): void => undefined;
  return new Connection('http://simulator.invalid/rpc', {
    commitment: 'confirmed',
    fetch: async (_input, init) => {
      const text = typeof init?.body === 'string' ? init.body : '';
      const answer = await dispatchJsonRpc(text, rpcMethods, env, { onInternalError });
      return new Response(answer ?? '', { status: 200, headers: { 'content-type': 'application/json' } });
    },
  });
}
