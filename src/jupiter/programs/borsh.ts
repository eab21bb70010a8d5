import { createHash } from 'node:crypto';
import { PublicKey } from '@solana/web3.js';

/*
 * Borsh as far as the products' hand-written Anchor layouts need it (prediction.ts): little-endian integers, 1-byte
 * bools, u32-length-prefixed utf8 strings, options as a 0/1 tag before the value, u8 enums.
 */

/** Anchor's 8-byte discriminator: the first bytes of sha256(`global:<snake_name>`) or sha256(`account:<PascalName>`). */
export function anchorDiscriminator(namespace: 'global' | 'account', name: string): Buffer {
  return createHash('sha256').update(`${namespace}:${name}`).digest().subarray(0, 8);
}

/** Appends Borsh fields; `done()` returns the bytes. */
export class BorshWriter {
  private readonly parts: Buffer[] = [];
  /** Bytes as they are (a discriminator). */
  raw(b: Uint8Array): this {
    this.parts.push(Buffer.from(b));
    return this;
  }
  private int(size: number, write: (b: Buffer) => unknown): this {
    const b = Buffer.alloc(size);
    write(b);
    return this.raw(b);
  }
  u8(n: number): this {
    return this.int(1, (b) => b.writeUInt8(n));
  }
  bool(v: boolean): this {
    return this.u8(v ? 1 : 0);
  }
  u16(n: number): this {
    return this.int(2, (b) => b.writeUInt16LE(n));
  }
  u32(n: number): this {
    return this.int(4, (b) => b.writeUInt32LE(n));
  }
  u64(n: bigint): this {
    return this.int(8, (b) => b.writeBigUInt64LE(n));
  }
  i64(n: bigint): this {
    return this.int(8, (b) => b.writeBigInt64LE(n));
  }
  key(k: PublicKey): this {
    return this.raw(k.toBuffer());
  }
  str(s: string): this {
    const b = Buffer.from(s, 'utf8');
    return this.u32(b.length).raw(b);
  }
  /** A u8 enum: the value's index in `values` (a value not in it throws). */
  variant<T>(values: readonly T[], v: T): this {
    const i = values.indexOf(v);
    if (i < 0) throw new RangeError(`not a variant: ${String(v)}`);
    return this.u8(i);
  }
  optStr(s: string | null): this {
    return s === null ? this.u8(0) : this.u8(1).str(s);
  }
  optKey(k: PublicKey | null): this {
    return k === null ? this.u8(0) : this.u8(1).key(k);
  }
  optU16(n: number | null): this {
    return n === null ? this.u8(0) : this.u8(1).u16(n);
  }
  done(): Buffer {
    return Buffer.concat(this.parts);
  }
}

/** Reads what `BorshWriter` writes, from just past an 8-byte Anchor discriminator; reading past the end throws a RangeError. */
export class BorshReader {
  private at = 8;
  private constructor(private readonly b: Buffer) {}
  /** A reader of `data`, or undefined when it does not start with `discriminator`. */
  static of(data: Uint8Array, discriminator: Uint8Array): BorshReader | undefined {
    const b = Buffer.from(data);
    return b.length >= 8 && b.subarray(0, 8).equals(discriminator) ? new BorshReader(b) : undefined;
  }
  private take(n: number): Buffer {
    if (this.at + n > this.b.length) throw new RangeError('data too short for its layout');
    return this.b.subarray(this.at, (this.at += n));
  }
  u8(): number {
    return this.take(1).readUInt8();
  }
  bool(): boolean {
    return this.u8() === 1;
  }
  u16(): number {
    return this.take(2).readUInt16LE();
  }
  u32(): number {
    return this.take(4).readUInt32LE();
  }
  u64(): bigint {
    return this.take(8).readBigUInt64LE();
  }
  i64(): bigint {
    return this.take(8).readBigInt64LE();
  }
  key(): PublicKey {
    return new PublicKey(this.take(32));
  }
  str(): string {
    return this.take(this.u32()).toString('utf8');
  }
  /** A u8 enum, as the element of `values` at its index. */
  variant<T>(values: readonly T[]): T {
    const v = values[this.u8()];
    if (v === undefined) throw new RangeError('enum value out of range');
    return v;
  }
  optStr(): string | null {
    return this.bool() ? this.str() : null;
  }
  optKey(): PublicKey | null {
    return this.bool() ? this.key() : null;
  }
  optU16(): number | null {
    return this.bool() ? this.u16() : null;
  }
  optU64(): bigint | null {
    return this.bool() ? this.u64() : null;
  }
  optI64(): bigint | null {
    return this.bool() ? this.i64() : null;
  }
  /** Bytes not read yet (an older layout may end before a field a newer one appends). */
  left(): number {
    return this.b.length - this.at;
  }
}
