import { PROGRAM_IDS } from '../lib/programIds.js';

/**
 * The programs a transaction from each Jupiter API area may invoke at the top level (inner CPIs are not limited:
 * an aggregator reaches every DEX through its own program). Mainnet ids; where each comes from is noted beside it.
 */

/** A Jupiter API area whose transactions the bot signs. */
export type ApiArea = 'ultra' | 'swap' | 'trigger' | 'recurring' | 'lend' | 'send' | 'prediction';

/** Every API area, in a stable order. */
export const API_AREAS: readonly ApiArea[] = Object.freeze(['ultra', 'swap', 'trigger', 'recurring', 'lend', 'send', 'prediction']);

export { PROGRAM_IDS } from '../lib/programIds.js';

/** Programs any area may invoke: system transfers, compute budget, token accounts and memos. */
export const COMMON_PROGRAMS: readonly string[] = Object.freeze([
  PROGRAM_IDS.system,
  PROGRAM_IDS.computeBudget,
  PROGRAM_IDS.splToken,
  PROGRAM_IDS.token2022,
  PROGRAM_IDS.associatedToken,
  PROGRAM_IDS.memoV1,
  PROGRAM_IDS.memoV2,
]);

const AREA_PROGRAMS: Readonly<Record<ApiArea, readonly string[]>> = Object.freeze({
  ultra: [PROGRAM_IDS.jupiterV6, PROGRAM_IDS.jupiterOrderEngine],
  swap: [PROGRAM_IDS.jupiterV6, PROGRAM_IDS.jupiterOrderEngine],
  trigger: [PROGRAM_IDS.jupiterTrigger],
  recurring: [PROGRAM_IDS.jupiterRecurring],
  lend: [PROGRAM_IDS.jupiterLendEarn],
  send: [PROGRAM_IDS.jupiterSend],
  // A prediction buy paid in another stable routes the deposit through the aggregator first (a live order, captured:
  // see src/jupiter/programs/prediction.ts); the product check accepts only that swap, and only in a buy.
  prediction: [PROGRAM_IDS.jupiterPrediction, PROGRAM_IDS.jupiterV6],
});

/**
 * The top-level programs a transaction of `area` may invoke: the common base, the area's Jupiter programs, and
 * `extraPrograms` (base58 ids the operator adds in config, e.g. a program Jupiter starts using before we list it).
 */
export function allowedProgramsFor(area: ApiArea, extraPrograms: Iterable<string> = []): ReadonlySet<string> {
  return new Set([...COMMON_PROGRAMS, ...AREA_PROGRAMS[area], ...extraPrograms]);
}

/**
 * Jito's tip accounts (mainnet): a transfer of lamports to one of them is a priority fee paid to the block engine,
 * and counts against the priority-fee cap rather than as a payment to a stranger. Ultra's
 * `prioritizationFeeLamports` "includes Jito and other tips" (jupiter-api.md §1.2).
 */
export const TIP_ACCOUNTS: ReadonlySet<string> = new Set([
  '96gYZGLnJYVFmbjzopPSU6QiEV5fGqZNyN9nmNhvrZU5',
  'HFqU5x63VTqvQss8hp11i4wVV8bD44PvwucfZ2bU7gRe',
  'Cw8CFyM9FkoMi7K7Crf6HNQqf4uEMzpKw6QNghXLvLkY',
  'ADaUMid9yfUytqMBgopwjb2DTLSokTSzL1zt6iGPaS49',
  'DfXygSm4jCyNCybVYYK6DwvWqjKee8pbDmJGcLWNDXjh',
  'ADuUkR4vqLUMWXxW9gh6D6L8pMSawimctcNZ5pGwDcEt',
  'DttWaMuVvTiduZRnguLF7jNxTgiMBZ1hyAumKUiL2KRL',
  '3AVi9Tg9Uo68tJfuvoKvqKNWKkC5wPdSSdeBnizKZ6jT',
]);
