import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Keypair } from '@solana/web3.js';
import { runCli } from '../cli/runCli.js';

// `config check` loads the wallet a live config names, as `run` would: a keypair file that is missing or is not a
// keypair is a config problem with its path, and nothing of a key is printed.
const dir = mkdtempSync(join(tmpdir(), 'jk-keypair-check-'));
const config = (keypairPath: string): string => {
  const file = join(dir, `live-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(
    file,
    `venue:
  kind: live
  rpcUrl: http://127.0.0.1:1
wallet:
  keypairPath: ${keypairPath}
strategies:
  - id: d
    strategy: dca-swap
    schedule: { every: 1h }
    params: { inputMint: USDC, outputMint: SOL, amount: "1000000" }
`,
  );
  return file;
};

describe('config check and the wallet', () => {
  it('accepts a config whose keypair file loads', async () => {
    const kp = Keypair.generate();
    writeFileSync(join(dir, 'good.json'), JSON.stringify([...kp.secretKey]));
    const r = await runCli(['config', 'check', config('./good.json')]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  }, 60_000);

  it('names a missing keypair file and one that is not a keypair, printing nothing of its content', async () => {
    const missing = await runCli(['config', 'check', config('./nowhere.json')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/- wallet\.keypairPath: cannot read the keypair file .*nowhere\.json: ENOENT/);
    writeFileSync(join(dir, 'short.json'), JSON.stringify([201, 202, 203, 204, 205]));
    const short = await runCli(['config', 'check', config('./short.json')]);
    expect(short.code).toBe(1);
    expect(short.stderr).toMatch(/- wallet\.keypairPath: keypair file .*short\.json must be a JSON array of 64 numbers/);
    expect(short.stderr).not.toMatch(/201|202|203/);
  }, 60_000);

  it('checks JUPKEEPER_KEYPAIR_PATH over the config\'s file, naming the variable', async () => {
    const r = await runCli(['config', 'check', config('./nowhere.json')], { JUPKEEPER_KEYPAIR_PATH: join(dir, 'also-missing.json') });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/- \(env\)\.JUPKEEPER_KEYPAIR_PATH: cannot read the keypair file .*also-missing\.json: ENOENT/);
  }, 60_000);
});
