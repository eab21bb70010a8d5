import { createHash } from 'node:crypto';

/** A small, fast, seedable PRNG (sfc32). Every stream of randomness in the simulator comes from one of these. */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;
  private spare: number | undefined;

  /** A stream derived from a seed and a label, so adding a stream never changes another one. */
  constructor(seed: number | string, label = '') {
    const h = createHash('sha256').update(`${seed}:${label}`).digest();
    this.a = h.readUInt32LE(0);
    this.b = h.readUInt32LE(4);
    this.c = h.readUInt32LE(8);
    this.d = h.readUInt32LE(12);
    for (let i = 0; i < 12; i += 1) this.nextUint32();
  }

  /** A uniform 32-bit unsigned integer. */
  nextUint32(): number {
    this.a >>>= 0;
    this.b >>>= 0;
    this.c >>>= 0;
    this.d >>>= 0;
    const t = (this.a + this.b) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.d = (this.d + 1) | 0;
    const r = (t + this.d) | 0;
    this.c = (this.c + r) | 0;
    return r >>> 0;
  }

  /** A uniform float in [0, 1). */
  next(): number {
    return this.nextUint32() / 4294967296;
  }

  /** A standard normal draw (Box-Muller). */
  normal(): number {
    if (this.spare !== undefined) {
      const s = this.spare;
      this.spare = undefined;
      return s;
    }
    let u = 0;
    while (u === 0) u = this.next();
    const v = this.next();
    const r = Math.sqrt(-2 * Math.log(u));
    this.spare = r * Math.sin(2 * Math.PI * v);
    return r * Math.cos(2 * Math.PI * v);
  }

  /** 32 random bytes (keys, hashes). */
  bytes32(): Uint8Array {
    const out = new Uint8Array(32);
    for (let i = 0; i < 32; i += 4) new DataView(out.buffer).setUint32(i, this.nextUint32(), true);
    return out;
  }

  /** A UUID v4-shaped string from this stream (deterministic for a seed). */
  uuid(): string {
    const b = this.bytes32();
    b[6] = (b[6]! & 0x0f) | 0x40;
    b[8] = (b[8]! & 0x3f) | 0x80;
    const hex = Buffer.from(b.subarray(0, 16)).toString('hex');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
  }
}

/** 32 bytes derived from a label: stable addresses and keypairs of the simulator's own actors. */
export function seedBytes(label: string): Uint8Array {
  return new Uint8Array(createHash('sha256').update(`jup-keeper-sim:${label}`).digest());
}
