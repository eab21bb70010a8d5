import bs58 from 'bs58';

/** An instruction as the runtime holds it: indexes into the transaction's account keys, and raw data. */
export interface CompiledIx {
  programIdIndex: number;
  accounts: readonly number[];
  data: Uint8Array;
}

/** What a program parser makes of an instruction: Agave's ParsedInstructionEnum `{type, info}`. */
export interface ParsedIx {
  type: string;
  info: Record<string, unknown>;
}

/**
 * Thrown by a parser when Agave's would fail (data it cannot unpack, too few accounts): the instruction is then
 * shown partially decoded, as a node shows it.
 */
export class NotParsable extends Error {
  constructor(what: string) {
    super(`${what} instruction not parsable`);
    this.name = 'NotParsable';
  }
}

/** UTF-8 text, or NotParsable for bytes that are not valid UTF-8 (Rust's from_utf8 refuses them). */
export function strictUtf8(bytes: Uint8Array, what: string): string {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new NotParsable(what);
  }
}

/**
 * Reads instruction data the way the Rust unpackers do: little-endian integers, 32-byte keys, a one-byte tag before
 * an optional value (COption as token programs pack it). Reading past the end throws NotParsable; bytes left over
 * are ignored, as the unpackers ignore them.
 */
export class DataReader {
  private pos = 0;

  constructor(
    private readonly bytes: Uint8Array,
    private readonly what: string,
  ) {}

  u8(): number {
    return this.take(1)[0]!;
  }

  u16(): number {
    return Buffer.from(this.take(2)).readUInt16LE(0);
  }

  u64(): bigint {
    return Buffer.from(this.take(8)).readBigUInt64LE(0);
  }

  pubkey(): string {
    return bs58.encode(this.take(32));
  }

  optionPubkey(): string | null {
    const tag = this.u8();
    if (tag === 0) return null;
    if (tag === 1) return this.pubkey();
    throw new NotParsable(this.what);
  }

  optionU64(): bigint | null {
    const tag = this.u8();
    if (tag === 0) return null;
    if (tag === 1) return this.u64();
    throw new NotParsable(this.what);
  }

  /** The bytes not read yet. */
  rest(): Uint8Array {
    return this.bytes.subarray(this.pos);
  }

  private take(n: number): Uint8Array {
    if (this.pos + n > this.bytes.length) throw new NotParsable(this.what);
    const out = this.bytes.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }
}

/** The accounts of an instruction resolved to base58 keys, with Agave's account-count and index checks. */
export class IxAccounts {
  constructor(
    private readonly ix: CompiledIx,
    private readonly keys: readonly string[],
    private readonly what: string,
  ) {
    // Agave refuses an instruction without accounts or with an index past the keys ("key mismatch").
    const max = ix.accounts.length > 0 ? Math.max(...ix.accounts) : -1;
    if (max < 0 || max >= keys.length) throw new NotParsable(what);
  }

  get length(): number {
    return this.ix.accounts.length;
  }

  /** Throws unless the instruction has at least `n` accounts (Agave's check_num_accounts). */
  atLeast(n: number): this {
    if (this.ix.accounts.length < n) throw new NotParsable(this.what);
    return this;
  }

  /** The key of the instruction's `position`-th account. */
  key(position: number): string {
    const index = this.ix.accounts[position];
    const key = index === undefined ? undefined : this.keys[index];
    if (key === undefined) throw new NotParsable(this.what);
    return key;
  }

  /** Keys of the accounts from `position` on. */
  keysFrom(position: number, end = this.ix.accounts.length): string[] {
    return this.ix.accounts.slice(position, end).flatMap((i) => (this.keys[i] === undefined ? [] : [this.keys[i]]));
  }

  /**
   * Agave's parse_signers: the account at `last` is the authority; when more accounts follow, it is a multisig
   * (named `multisigField`) and the followers are listed as `signers`.
   */
  signers(info: Record<string, unknown>, last: number, ownerField: string, multisigField: string, accountsEnd = this.ix.accounts.length): void {
    const index = this.ix.accounts[last];
    const owner = index === undefined || last >= accountsEnd ? undefined : this.keys[index];
    if (accountsEnd > last + 1) {
      if (owner !== undefined) info[multisigField] = owner;
      info.signers = this.keysFrom(last + 1, accountsEnd);
    } else if (owner !== undefined) {
      info[ownerField] = owner;
    }
  }
}
