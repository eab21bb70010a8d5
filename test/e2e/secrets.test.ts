import bs58 from 'bs58';
import type { Keypair } from '@solana/web3.js';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../../src/sim/http/recorder.js';
import { airdrop, ledger, SOL, USDC } from '../helpers/sim.js';
import { runKeeperCli, spawnKeeper, writeConfig, writeKeypair, type KeeperProcess, useKeeperEnv } from '../helpers/keeper.js';
import { dcaSwapsConfig, isTerminalState, readIntents, stopKeeper, waitUntil } from '../helpers/e2e.js';

const API_KEY = 'jup_SECRETCANARY_7f3c9a1e5b2d4f60a8c1e3b5d7f9a2c4';

/** Every text form a 64-byte secret key (or its 32-byte seed) could take on its way out. */
function encodingsOf(secret: Uint8Array): Array<{ name: string; text: string }> {
  const out: Array<{ name: string; text: string }> = [];
  for (const [label, bytes] of [['secret', secret], ['seed', secret.slice(0, 32)]] as const) {
    const buf = Buffer.from(bytes);
    const b64 = buf.toString('base64');
    out.push(
      { name: `${label} base58`, text: bs58.encode(bytes) },
      { name: `${label} base64`, text: b64 },
      { name: `${label} base64 unpadded`, text: b64.replace(/=+$/, '') },
      { name: `${label} base64url`, text: buf.toString('base64url') },
      { name: `${label} hex`, text: buf.toString('hex') },
      { name: `${label} HEX`, text: buf.toString('hex').toUpperCase() },
      { name: `${label} hex bytes`, text: [...buf].map((b) => b.toString(16).padStart(2, '0')).join(' ') },
      // A JSON byte array (keypair file, JSON.stringify of a Uint8Array's values) with or without spaces, brackets
      // optional: also matches `[1,2,...]`, `[ 1, 2, ... ]` and inspect output.
      { name: `${label} byte list`, text: Array.from(bytes).join(',') },
      { name: `${label} byte list spaced`, text: Array.from(bytes).join(', ') },
      { name: `${label} JSON array`, text: JSON.stringify(Array.from(bytes)) },
      { name: `${label} JSON object`, text: JSON.stringify(Object.fromEntries(Array.from(bytes).map((b, i) => [i, b]))).slice(1, 120) },
    );
  }
  return out;
}

/** The encodings found in `haystack` (also with all whitespace removed, for multi-line dumps). */
function leaksIn(haystack: string, needles: Array<{ name: string; text: string }>): string[] {
  const squeezed = haystack.replace(/\s+/g, '');
  return needles.filter((n) => haystack.includes(n.text) || squeezed.includes(n.text.replace(/\s+/g, ''))).map((n) => n.name);
}

/** Every value in a Redis database, raw: strings, hashes (fields and values), lists, sets, sorted sets, streams. */
async function dumpRedis(url: string): Promise<Array<{ key: string; value: Buffer }>> {
  const r = new Redis(url, { maxRetriesPerRequest: 3 });
  r.on('error', () => undefined);
  const out: Array<{ key: string; value: Buffer }> = [];
  try {
    let cursor = '0';
    do {
      const [next, keys] = await r.scanBuffer(cursor, 'COUNT', 1000);
      cursor = next.toString();
      for (const keyBuf of keys) {
        const key = keyBuf.toString();
        const type = await r.type(keyBuf);
        // Gone between SCAN and TYPE: a key with a time to live (BullMQ's stalled-check lock) that expired holds nothing.
        if (type === 'none') continue;
        const add = (v: Buffer | null | undefined) => v && out.push({ key, value: v });
        out.push({ key, value: keyBuf });
        if (type === 'string') add(await r.getBuffer(keyBuf));
        else if (type === 'hash') for (const v of await r.hgetallBuffer(keyBuf).then((h) => Object.entries(h).flatMap(([f, x]) => [Buffer.from(f), x]))) add(v);
        else if (type === 'list') for (const v of await r.lrangeBuffer(keyBuf, 0, -1)) add(v);
        else if (type === 'set') for (const v of await r.smembersBuffer(keyBuf)) add(v);
        else if (type === 'zset') for (const v of await r.zrangeBuffer(keyBuf, 0, -1)) add(v);
        else if (type === 'stream') {
          const entries = (await r.xrangeBuffer(keyBuf, '-', '+')) as Array<[Buffer, Buffer[]]>;
          for (const [, fields] of entries) for (const v of fields) add(v);
        } else throw new Error(`unexpected Redis type ${type} of ${key}`);
      }
    } while (cursor !== '0');
  } finally {
    r.disconnect();
  }
  return out;
}

function requestText(r: RecordedRequest): string {
  return [r.method, r.path, ...Object.entries(r.headers).map(([k, v]) => `${k}: ${v}`), r.body].join('\n');
}

describe('secrets never leave the keeper process', () => {
  const world = useKeeperEnv('secrets', { sim: { recordRequests: true, apiKeys: [API_KEY] } });

  /** Runs a keeper through ultra and metis swaps in both directions until every intent is terminal. */
  async function fullCycle(prefix: string, keypair: Keypair, walletArgs: string[], env: Record<string, string>): Promise<KeeperProcess> {
    await airdrop(world.sim, keypair, SOL, 1_000_000_000n);
    await airdrop(world.sim, keypair, USDC, 100_000_000n);
    const config = writeConfig(
      world.dir,
      dcaSwapsConfig({
        venueUrl: world.sim.url,
        prefix,
        instances: [
          { id: 'ultra-sol', inputMint: SOL, outputMint: USDC, amount: 10_000_000n, via: 'ultra', everySeconds: 2, maxRuns: 2 },
          { id: 'metis-usdc', inputMint: USDC, outputMint: SOL, amount: 2_000_000n, via: 'metis', everySeconds: 2, maxRuns: 2 },
        ],
        // The simulator stands in for the keyed API here, so the key does go out, and must then leak nowhere else.
        extra: `api:\n  tier: off\n  keyedBaseUrl: ${world.sim.url}\n`,
      }),
      `${prefix}.yaml`,
    );
    const k = spawnKeeper(['run', '--config', config, '--redis-url', world.redis.url, ...walletArgs], { JUPITER_API_KEY: API_KEY, ...env });
    try {
      const intents = await waitUntil(
        `four terminal intents of ${prefix}`,
        async () => {
          const all = await readIntents(world.redis.url, prefix);
          return all.length >= 4 && all.every((i) => isTerminalState(i.state)) ? all : undefined;
        },
        60_000,
      );
      expect(intents.map((i) => i.state)).toEqual(['landed', 'landed', 'landed', 'landed']);
      const wallet = keypair.publicKey.toBase58();
      const swaps = (await ledger(world.sim)).filter((t) => t.wallet === wallet && t.kind !== 'airdrop');
      expect(swaps.filter((s) => s.kind === 'ultra')).toHaveLength(2);
      expect(swaps.filter((s) => s.kind !== 'ultra')).toHaveLength(2);
    } finally {
      expect(await stopKeeper(k)).toBe(0);
    }
    expect(k.logs().some((l) => l.msg === 'keeper stopped')).toBe(true);
    return k;
  }

  it('neither the wallet key (file or environment) nor the API key appears in requests, logs, stdout or Redis', async () => {
    const fromFile = writeKeypair(world.dir, 'file-wallet.json');
    const byFile = await fullCycle('e2e-secrets-file', fromFile.keypair, ['--wallet', fromFile.path], {});
    const fromEnv = writeKeypair(world.dir, 'env-wallet.json');
    const byEnv = await fullCycle('e2e-secrets-env', fromEnv.keypair, [], { JUPKEEPER_SECRET_KEY: bs58.encode(fromEnv.keypair.secretKey) });

    // The read-only commands print from the same records.
    const cli = await Promise.all(
      ['e2e-secrets-file', 'e2e-secrets-env'].flatMap((prefix) => [
        runKeeperCli(['status', '--redis-url', world.redis.url, '--prefix', prefix, '--json']),
        runKeeperCli(['intents', '--redis-url', world.redis.url, '--prefix', prefix, '--json']),
      ]),
    );
    for (const c of cli) expect(c.code).toBe(0);

    const needles = [...encodingsOf(fromFile.keypair.secretKey), ...encodingsOf(fromEnv.keypair.secretKey)];
    const apiKey = [{ name: 'API key', text: API_KEY }];
    // Sanity: the scanners do find what they look for.
    expect(leaksIn(`x ${JSON.stringify(Array.from(fromFile.keypair.secretKey), null, 2)} y`, needles)).toContain('secret JSON array');
    expect(leaksIn(`a${Buffer.from(fromEnv.keypair.secretKey).toString('hex')}b`, needles)).toEqual(expect.arrayContaining(['secret hex', 'seed hex']));

    // Requests: the key in no header, path or body; the API key only in x-api-key of Jupiter requests.
    const requests = world.sim.requests();
    const jupiter = requests.filter((r) => !r.path.startsWith('/rpc') && !r.path.startsWith('/__sim'));
    expect(jupiter.length).toBeGreaterThan(20);
    expect(requests.filter((r) => r.path.startsWith('/rpc')).length).toBeGreaterThan(20);
    expect(jupiter.some((r) => r.path.startsWith('/ultra/v1/execute'))).toBe(true);
    expect(jupiter.some((r) => r.path.startsWith('/swap/v1/swap'))).toBe(true);
    // The recorder keeps bodies: the signed transactions went out (signatures leave the process, keys do not).
    expect(jupiter.filter((r) => r.path.startsWith('/ultra/v1/execute')).every((r) => r.body.includes('signedTransaction'))).toBe(true);
    expect(requests.some((r) => r.path.startsWith('/rpc') && r.body.includes('sendTransaction'))).toBe(true);
    for (const r of requests) {
      expect(leaksIn(requestText(r), needles), `${r.method} ${r.path}`).toEqual([]);
      const { 'x-api-key': key, ...others } = r.headers;
      expect(leaksIn(requestText({ ...r, headers: others }), apiKey), `${r.method} ${r.path}`).toEqual([]);
      if (jupiter.includes(r)) expect(key, `${r.method} ${r.path}`).toBe(API_KEY);
      else expect(key, `${r.method} ${r.path}`).toBeUndefined();
    }

    // Logs and stdout of both runs and of the CLI.
    const outputs = [
      { name: 'file run stderr', text: byFile.stderr.join('') },
      { name: 'file run stdout', text: byFile.stdout.join('') },
      { name: 'env run stderr', text: byEnv.stderr.join('') },
      { name: 'env run stdout', text: byEnv.stdout.join('') },
      ...cli.map((c, i) => ({ name: `cli ${i} output`, text: c.stdout + c.stderr })),
    ];
    expect(byFile.logs().length).toBeGreaterThan(50);
    expect(byEnv.logs().length).toBeGreaterThan(50);
    for (const o of outputs) {
      expect(leaksIn(o.text, needles), o.name).toEqual([]);
      expect(leaksIn(o.text, apiKey), o.name).toEqual([]);
    }

    // Redis: every key and value, as text and as raw bytes.
    const values = await dumpRedis(world.redis.url);
    expect(values.some((v) => v.key.startsWith('e2e-secrets-file:'))).toBe(true);
    expect(values.some((v) => v.key.startsWith('e2e-secrets-env:'))).toBe(true);
    const rawSecrets = [fromFile.keypair.secretKey, fromEnv.keypair.secretKey].map((s) => Buffer.from(s.slice(0, 32)));
    for (const { key, value } of values) {
      const text = value.toString('utf8');
      expect(leaksIn(text, needles), key).toEqual([]);
      expect(leaksIn(text, apiKey), key).toEqual([]);
      for (const raw of rawSecrets) expect(value.includes(raw), key).toBe(false);
    }
  }, 150_000);

  it('a real-looking key is sent to no venue the config does not name as keyed (a paper keeper on the simulator)', async () => {
    const realLooking = 'jup_3f9a7c1e5b2d4f60a8c1e3b5d7f9a2c4e6b8d0f1';
    const prefix = 'e2e-secrets-unkeyed';
    const wallet = writeKeypair(world.dir, 'unkeyed-wallet.json');
    await airdrop(world.sim, wallet.keypair, SOL, 1_000_000_000n);
    const config = writeConfig(
      world.dir,
      dcaSwapsConfig({ venueUrl: world.sim.url, prefix, instances: [{ id: 'ultra-once', inputMint: SOL, outputMint: USDC, amount: 10_000_000n, via: 'ultra', everySeconds: 2, maxRuns: 1 }], extra: 'api:\n  tier: off\n' }),
      `${prefix}.yaml`,
    );
    const seen = world.sim.requests().length;
    const k = spawnKeeper(['run', '--config', config, '--redis-url', world.redis.url, '--wallet', wallet.path], { JUPITER_API_KEY: realLooking });
    try {
      const intents = await waitUntil(`the intent of ${prefix}`, async () => {
        const all = await readIntents(world.redis.url, prefix);
        return all.length >= 1 && all.every((i) => isTerminalState(i.state)) ? all : undefined;
      }, 60_000);
      expect(intents.map((i) => i.state)).toEqual(['landed']);
    } finally {
      expect(await stopKeeper(k)).toBe(0);
    }
    const requests = world.sim.requests().slice(seen);
    const jupiter = requests.filter((r) => !r.path.startsWith('/rpc') && !r.path.startsWith('/__sim'));
    expect(jupiter.some((r) => r.path.startsWith('/ultra/v1/execute'))).toBe(true);
    for (const r of requests) {
      expect(r.headers['x-api-key'], `${r.method} ${r.path}`).toBeUndefined();
      expect(requestText(r), `${r.method} ${r.path}`).not.toContain(realLooking);
    }
  }, 90_000);
});
