import { describe, expect, it } from 'vitest';
import { publicUrl } from '../../src/lib/urls.js';

describe('a URL stored in the keeper\'s meta hash (Redis)', () => {
  it('keeps scheme and host only: providers put keys in the path, the query or the authority', () => {
    expect(publicUrl('https://x.quiknode.pro/TOKEN123/')).toBe('https://x.quiknode.pro');
    expect(publicUrl('https://solana-mainnet.g.alchemy.com/v2/KEY456')).toBe('https://solana-mainnet.g.alchemy.com');
    expect(publicUrl('https://rpc.helius.xyz/?api-key=KEY789')).toBe('https://rpc.helius.xyz');
    expect(publicUrl('https://user:PASS@rpc.example.com:8899/path#frag')).toBe('https://rpc.example.com:8899');
    expect(publicUrl('http://127.0.0.1:8899')).toBe('http://127.0.0.1:8899');
    expect(publicUrl('not a url')).toBe('(invalid url)');
  });
});
