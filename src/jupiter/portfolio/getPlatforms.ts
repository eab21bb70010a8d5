import { z } from 'zod';
import type { CallOptions, JupiterTransport } from '../transport.js';

/** getPlatforms takes no parameters. */
export type GetPlatformsParams = Record<string, never>;

const link = z.string().nullish();

/** One platform the Portfolio API can scan. */
export const platformSchema = z.object({
  /** Id to pass in getPositions' `platforms`. */
  id: z.string(),
  name: z.string(),
  image: z.string().nullish(),
  description: z.string().nullish(),
  defiLlamaId: z.string().nullish(),
  isDeprecated: z.boolean().nullish(),
  /** Mints of the platform's tokens. */
  tokens: z.array(z.string()).nullish(),
  tags: z.array(z.string()).nullish(),
  links: z
    .object({ website: link, discord: link, telegram: link, twitter: link, github: link, medium: link, documentation: link })
    .nullish(),
});
/** A parsed platform. */
export type PortfolioPlatform = z.output<typeof platformSchema>;

/** The `/portfolio/v1/platforms` body. */
export const platformsResponseSchema = z.array(platformSchema);

/** GET /portfolio/v1/platforms: the platforms getPositions can report on (5 credits a call). */
export async function getPlatforms(client: JupiterTransport, _params: GetPlatformsParams = {}, options: CallOptions = {}): Promise<PortfolioPlatform[]> {
  return client.request({
    endpoint: 'portfolio.platforms',
    method: 'GET',
    path: '/portfolio/v1/platforms',
    schema: platformsResponseSchema,
    signal: options.signal,
  });
}
