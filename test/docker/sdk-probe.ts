// A strategy of the user's own for test/docker/image.test.ts, copied into the image-like directory's config/. It logs
// which module its `jup-keeper/sdk` import resolved to, so the test can tell the compiled SDK (the engine's) from a
// second copy. It decides nothing.
import { defineStrategy, z } from 'jup-keeper/sdk';

export default defineStrategy({
  name: 'sdk-probe',
  version: '1.0.0',
  sdk: 1,
  params: z.strictObject({}),
  watches: () => ({ mints: ['So11111111111111111111111111111111111111112'] }),
  decide: (ctx) => {
    ctx.log.info('sdk probe', { sdk: import.meta.resolve('jup-keeper/sdk') });
    return [];
  },
});
