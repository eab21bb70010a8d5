import { z } from 'zod';
import { address, commaList, nonEmpty, queryInt, u64String } from './params.js';

/*
 * Requests of the Ultra Swap API, /ultra/v1 (openapi/ultra.yaml; jupiter-api.md §1.1, §1.3, §1.4; the manual-mode
 * parameters from DOCS ultra/manual-mode.mdx as jupiter-api.md §1.1 lists them). Bad input is answered `{error}`
 * with 400, and /execute's missing fields with the documented codes -4 and -5.
 */

/** The routers `excludeRouters` may name (ultra.yaml: enum metis, jupiterz, dflow, okx; comma-separated). */
export const ULTRA_ROUTER_IDS = ['metis', 'jupiterz', 'dflow', 'okx'] as const;
/** A router of Ultra's engine. */
export type UltraRouterId = (typeof ULTRA_ROUTER_IDS)[number];

const routerList = z
  .string()
  .transform((s) => s.split(',').map((r) => r.trim()).filter((r) => r !== ''))
  .pipe(z.array(z.enum(ULTRA_ROUTER_IDS, { error: `must be a list of ${ULTRA_ROUTER_IDS.join(', ')}` })));

/**
 * Query of GET /ultra/v1/order. `amount` is a u64 string of the input mint (ExactIn only). `referralFee` is 50 to
 * 255 bps. Manual mode: `slippageBps` 0 to 10,000, `priorityFeeLamports` above 0, `jitoTipLamports` at least
 * 1,000 (the docs give no upper bound for either), `broadcastFeeType` maxCap or exactFee. The pairings (payer,
 * referral, closeAuthority) are the desk's to refuse, with the service's `{error}`.
 */
export const ultraOrderQuery = z.object({
  inputMint: address,
  outputMint: address,
  amount: u64String,
  taker: address.optional(),
  receiver: address.optional(),
  payer: address.optional(),
  closeAuthority: address.optional(),
  referralAccount: address.optional(),
  referralFee: queryInt(50, 255).optional(),
  excludeRouters: routerList.optional(),
  /** Metis DEX labels, comma-separated, `+` for a space (`Orca+V2`). */
  excludeDexes: z.string().optional(),
  slippageBps: queryInt(0, 10_000).optional(),
  broadcastFeeType: z.enum(['maxCap', 'exactFee']).optional(),
  priorityFeeLamports: queryInt(1).optional(),
  jitoTipLamports: queryInt(1_000).optional(),
});
/** A parsed order query. */
export type UltraOrderQuery = z.output<typeof ultraOrderQuery>;

/** Body of POST /ultra/v1/execute: both fields required (ultra.yaml); an empty string is as good as missing. */
export const ultraExecuteBody = z.object({ signedTransaction: nonEmpty, requestId: nonEmpty });
/** A parsed execute body. */
export type UltraExecuteBody = z.output<typeof ultraExecuteBody>;

/**
 * The documented refusal of an execute body that does not parse: -5 without a signed transaction, else -4
 * without a request id (jupiter-api.md §1.3), status 400 (§12: a guess).
 */
export function executeBodyError(body: unknown): { error: string; code: number } {
  const signed = ultraExecuteBody.shape.signedTransaction.safeParse((body as { signedTransaction?: unknown } | undefined)?.signedTransaction);
  return signed.success ? { error: 'Missing request id', code: -4 } : { error: 'Missing signed transaction', code: -5 };
}

/** The wallet of /holdings/{address}, /holdings/{address}/native and /balances/{address}. */
export const walletPath = address;

/** Query of GET /ultra/v1/shield: `mints`, comma-separated (required). */
export const shieldQuery = z.object({ mints: commaList(address, 1, Number.MAX_SAFE_INTEGER, 'mint') });
