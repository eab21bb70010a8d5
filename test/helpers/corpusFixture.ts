// The mainnet corpus's fixture format (test/fixtures/mainnet/README.md): one JSON per transaction, parsed with zod
// here, and the lookup-table registry the fixtures share. Nothing here runs the guard; corpus.ts turns a fixture into
// the states a recorded RPC serves.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { z } from 'zod';

/** Where the corpus lives. */
export const CORPUS_DIR = join(import.meta.dirname, '..', 'fixtures', 'mainnet');

const address = z.string().regex(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/, 'a base58 address');
const digits = z.string().regex(/^\d+$/, 'a decimal string');
const lamports = z.union([z.number().int().nonnegative(), digits]);
/** Why a state or a field is not as the source recorded it (absent: as recorded). */
const reconstructed = z.string().min(1).optional();

/** An account as the chain held it, raw (base64 data), as a source captured it or an encoder of src/ wrote it. */
const rawAccount = z.object({ lamports, owner: address, data: z.string(), executable: z.boolean().optional(), reconstructed, fields: z.record(z.string(), z.unknown()).optional() }).strict();
/** An SPL Token or Token-2022 account, described (the harness writes its bytes with @solana/spl-token's layout). */
const tokenAccount = z.object({
  lamports,
  token: z.object({
    mint: address,
    owner: address,
    amount: digits,
    program: address.optional(),
    delegate: address.optional(),
    delegatedAmount: digits.optional(),
    closeAuthority: address.optional(),
    /** A native (wrapped SOL) account's rent-exempt reserve, lamports. */
    nativeReserve: digits.optional(),
    frozen: z.boolean().optional(),
  }).strict(),
  reconstructed,
}).strict();
/** A mint, described. */
const mintAccount = z.object({
  lamports,
  mint: z.object({ decimals: z.number().int().min(0).max(255), supply: digits.optional(), mintAuthority: address.nullable().optional(), freezeAuthority: address.nullable().optional(), program: address.optional() }).strict(),
  reconstructed,
}).strict();
/** A plain system account (a wallet): lamports and nothing else. */
const systemAccount = z.object({ lamports, system: z.literal(true), reconstructed }).strict();

export const accountStateSchema = z.union([rawAccount, tokenAccount, mintAccount, systemAccount]);
/** One account state of a fixture. */
export type FixtureAccount = z.infer<typeof accountStateSchema>;

const uiTokenAmount = z.object({ amount: digits, decimals: z.number().int() }).passthrough();
const tokenBalance = z.object({ accountIndex: z.number().int().nonnegative(), mint: address, owner: address.optional(), programId: address.optional(), uiTokenAmount }).passthrough();
/** A token balance as getTransaction's meta carries it. */
export type TokenBalance = z.infer<typeof tokenBalance>;

/** The transaction's effects as the RPC returns them (getTransaction's meta), or a simulation written in that shape. */
const metaSchema = z.object({
  err: z.unknown(),
  fee: z.number().int().optional(),
  innerInstructions: z.array(z.object({ index: z.number().int().nonnegative(), instructions: z.array(z.record(z.string(), z.unknown())) }).passthrough()),
  preBalances: z.array(z.number().int().nonnegative()),
  postBalances: z.array(z.number().int().nonnegative()),
  preTokenBalances: z.array(tokenBalance),
  postTokenBalances: z.array(tokenBalance),
  logMessages: z.array(z.string()).optional(),
  computeUnitsConsumed: z.number().int().optional(),
}).passthrough();

const PRODUCTS = ['swap', 'ultra', 'trigger', 'recurring', 'lend', 'send', 'prediction'] as const;

export const fixtureSchema = z.object({
  /** The path under test/fixtures/mainnet without `.json` (set by the loader from where the file is). */
  id: z.string().optional(),
  product: z.enum(PRODUCTS),
  route: z.string().min(1),
  source: z.object({
    /** executed: a landed transaction with its meta; api-capture: what a Jupiter API answered, unsent; docs-example: a response in Jupiter's documentation. */
    kind: z.enum(['executed', 'api-capture', 'docs-example']),
    repository: z.string(),
    path: z.string(),
    commit: z.string().optional(),
    signature: z.string().optional(),
    what: z.string(),
  }).strict(),
  wallet: address,
  /** The intent that would have asked for the transaction (bigints as decimal strings). */
  intent: z.record(z.string(), z.unknown()),
  /** The venue's declared co-signers for this product, and who each is. */
  coSigners: z.array(z.object({ address, who: z.string() }).strict()),
  /** Signers the engine itself adds (a send's invite signer). */
  engineSigners: z.array(address).optional(),
  /** A lend withdrawal's share token and the most of it burnt, from the lend listing. */
  burn: z.object({ mint: address, max: digits }).strict().optional(),
  /** The wire transaction, base64. */
  transaction: z.string(),
  /** How the bytes were had when not as the source gave them (re-encoded from jsonParsed, and checked how). */
  transactionNote: z.string().optional(),
  /** The states before, of every account the guard reads that the meta's balances alone cannot describe; null: absent. */
  accounts: z.record(address, accountStateSchema.nullable()),
  /** States after the transaction that the meta's balances cannot describe (an account the product creates). */
  postAccounts: z.record(address, accountStateSchema.nullable()).optional(),
  meta: metaSchema,
  /** What in the fixture is not from the source, one statement each. Empty: everything is as recorded. */
  reconstructed: z.array(z.string()),
  /** A swap's prices for the guard's valuation, and where they came from. */
  market: z.object({ prices: z.record(address, z.object({ usd: z.number().positive(), decimals: z.number().int() }).strict()), from: z.string() }).strict().optional(),
  /** The guard's configured limits for this fixture (the config's risk section). */
  policy: z.object({ maxPriorityFeeLamports: digits, maxSlippageBps: z.number().int().min(0).max(10_000), allowToken2022Mints: z.array(address).optional() }).strict(),
  notes: z.string(),
  /**
   * A real transaction that is not what the intent asks for, though the venue built it for a user like the wallet
   * (a fee the keeper never asks for): the rules the guard refuses it with, and why that is right.
   */
  refusedFor: z.object({ rules: z.array(z.string()).min(1), why: z.string() }).strict().optional(),
}).strict();

/** A parsed fixture. */
export type CorpusFixture = z.infer<typeof fixtureSchema> & { id: string };

const tablesSchema = z.object({
  note: z.string(),
  tables: z.record(address, z.object({
    /** The table's account data as a source captured it (base64). */
    data: z.string().optional(),
    /** Addresses at indexes of the table, where the table's data was not captured. */
    slots: z.record(z.string().regex(/^\d+$/), z.object({ address, from: z.string() }).strict()).optional(),
    source: z.string(),
  }).strict()),
}).strict();

/** The lookup tables the fixtures name, by address (test/fixtures/mainnet/lookup-tables.json). */
export type TableRegistry = z.infer<typeof tablesSchema>['tables'];

/** Reads and checks one fixture by its id (its path under the corpus without `.json`). */
export function readFixture(id: string): CorpusFixture {
  const file = join(CORPUS_DIR, `${id}.json`);
  const parsed = fixtureSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
  if (!parsed.success) throw new Error(`${relative(process.cwd(), file)}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  return { ...parsed.data, id };
}

/** Every fixture id of the corpus, sorted (the JSON files under product folders; README, SOURCES and the table registry are not fixtures). */
export function fixtureIds(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.json') && dir !== CORPUS_DIR) out.push(relative(CORPUS_DIR, path).replace(/\.json$/, '').split('\\').join('/'));
    }
  };
  walk(CORPUS_DIR);
  return out.sort();
}

let registry: TableRegistry | undefined;

/** The lookup-table registry, read once. */
export function tableRegistry(): TableRegistry {
  if (!registry) {
    const parsed = tablesSchema.safeParse(JSON.parse(readFileSync(join(CORPUS_DIR, 'lookup-tables.json'), 'utf8')));
    if (!parsed.success) throw new Error(`lookup-tables.json: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
    registry = parsed.data.tables;
  }
  return registry;
}
