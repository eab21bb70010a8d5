import { z } from 'zod';
import type { CallOptions, JupiterTransport } from '../transport.js';

/** The /swap/v1/program-id-to-label body: DEX program id to its label (the label is what `dexes` takes). */
export const programIdToLabelResponseSchema = z.record(z.string(), z.string());
/** Program id to DEX label, e.g. `whirLbMiicVdio4qvUfM5KAg6Ct8VwpYzGff3uctyCc` to `Orca Whirlpool`. */
export type ProgramIdToLabel = z.output<typeof programIdToLabelResponseSchema>;

/** GET /swap/v1/program-id-to-label: every DEX Metis routes through, to map failed programs or pick `dexes`. */
export async function getProgramIdToLabel(client: JupiterTransport, options: CallOptions = {}): Promise<ProgramIdToLabel> {
  return client.request({
    endpoint: 'swap.programIdToLabel',
    method: 'GET',
    path: '/swap/v1/program-id-to-label',
    schema: programIdToLabelResponseSchema,
    signal: options.signal,
  });
}
