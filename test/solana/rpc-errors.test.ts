import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { SolanaRpc } from '../../src/solana/rpc.js';

// An RPC node that cannot be reached is named in the error (scheme and host), never with the key a provider puts in
// the URL's path or query.
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('RPC errors', () => {
  it('name the node it could not reach, without the key in its URL', async () => {
    const port = await closedPort();
    const rpc = new SolanaRpc(`http://127.0.0.1:${port}/v2/PATH-KEY-123?api-key=QUERY-KEY-456`);
    const err = await rpc.batch([{ method: 'getSlot', params: [] }, { method: 'getBlockHeight', params: [] }]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toBe(`cannot reach the RPC node at http://127.0.0.1:${port}: connect ECONNREFUSED 127.0.0.1:${port}`);
    expect(String((err as Error).message)).not.toMatch(/KEY-123|KEY-456/);
  });
});
