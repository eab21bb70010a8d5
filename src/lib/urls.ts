/**
 * A URL as scheme and host only, safe to store (the keeper's `meta` hash in Redis) and show. Not the path nor the
 * query: RPC providers put the key in either (https://x.quiknode.pro/TOKEN/,
 * https://solana-mainnet.g.alchemy.com/v2/KEY, https://rpc.helius.xyz/?api-key=KEY), and user:password in the
 * authority is dropped too.
 */
export function publicUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}`;
  } catch {
    return '(invalid url)';
  }
}
