import { randomBytes } from 'node:crypto';

/** An HTTP answer of a product: status and JSON body (bigints are written as strings). */
export interface Reply {
  status: 200 | 400 | 401 | 404 | 409 | 422 | 429 | 500 | 502 | 503;
  body: unknown;
}

/** A request id shaped like Jupiter's (a UUID v7: time-ordered). */
export function requestId(nowMs: number): string {
  const b = randomBytes(16);
  const ts = BigInt(Math.floor(nowMs));
  for (let i = 0; i < 6; i += 1) b[i] = Number((ts >> BigInt(8 * (5 - i))) & 0xffn);
  b[6] = (b[6]! & 0x0f) | 0x70;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** Formats a fraction as Jupiter's decimal-string ratios ("-0.0001311599520149334"). */
export function ratioString(x: number): string {
  if (x === 0) return '0';
  return x.toFixed(12).replace(/0+$/, '').replace(/\.$/, '');
}
