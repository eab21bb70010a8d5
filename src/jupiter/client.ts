import { JupiterTransport, type JupiterClientConfig } from './transport.js';
import { bindUltra } from './ultra/index.js';
import { bindSwap } from './swap/index.js';
import { bindTokens } from './tokens/index.js';
import { bindPrice } from './price/index.js';
import { bindTrigger } from './trigger/index.js';
import { bindRecurring } from './recurring/index.js';
import { bindLend } from './lend/index.js';
import { bindPortfolio } from './portfolio/index.js';
import { bindSend } from './send/index.js';
import { bindPrediction } from './prediction/index.js';

/**
 * Creates the Jupiter client: one transport (auth, rate budget, retries) and every API area's endpoint functions
 * bound to it. The client holds no other state.
 */
export function createJupiterClient(config: JupiterClientConfig) {
  const transport = new JupiterTransport(config);
  return Object.freeze({
    transport,
    ultra: bindUltra(transport),
    swap: bindSwap(transport),
    tokens: bindTokens(transport),
    price: bindPrice(transport),
    trigger: bindTrigger(transport),
    recurring: bindRecurring(transport),
    lend: bindLend(transport),
    portfolio: bindPortfolio(transport),
    send: bindSend(transport),
    prediction: bindPrediction(transport),
  });
}

/** The bound Jupiter client. */
export type JupiterClient = ReturnType<typeof createJupiterClient>;
