import { ReplyError, type Redis } from 'ioredis';
import { KeeperError } from '../lib/errors.js';
import type { DurabilityMode } from './redis.js';
import { evalScript } from './scripts.js';

/** How the intent store makes a write durable; from `checkRedis` at start-up. */
export interface StoreDurability {
  mode: DurabilityMode;
  /** Replicas that must acknowledge (`WAIT`) or fsync (`WAITAOF`) each durable write. */
  replicas: number;
  /** Longest wait for the acknowledgements, ms (default 3000: WAITAOF under `appendfsync everysec` takes up to 1 s). */
  timeoutMs?: number;
}

/** Rounds of write-then-wait before giving up when the connection keeps dropping between the two. */
const MAX_ROUNDS = 3;
const DEFAULT_TIMEOUT_MS = 3_000;

/**
 * Runs scripts whose effect must be durable before the caller acts on it (the `signed` record, before the
 * transaction leaves the process).
 *
 * - `waitaof`: `WAITAOF 1 <replicas> <timeout>` after the script: the AOF (and the replicas' AOFs) holds it on disk.
 * - `fsync-always`: Redis fsyncs the AOF before it replies, so the reply is enough; `WAIT <replicas> <timeout>`
 *   when replicas exist, so a failover cannot promote a replica that never saw the write.
 * - `none` (paper): nothing more.
 *
 * WAIT and WAITAOF only cover writes made on the same connection, and block that connection while they wait (up
 * to a second under `appendfsync everysec`): the waits run on dedicated connections, never on the store's shared
 * one. The script, the wait and two `CLIENT ID`s go as one pipeline. When the connection closes after some of its
 * replies, ioredis aborts the rest, and the round is repeated on the new connection; the two ids catch the other
 * way it could go (the rest re-sent on a new connection, where the wait would vouch for nothing). The scripts run
 * this way must therefore be idempotent (the move script answers a repeated move token as a no-op, and rewrites
 * the token so the new connection's last write comes after the original one).
 */
export class DurableWriter {
  private readonly idle: Redis[] = [];
  private readonly open = new Set<Redis>();
  private closed = false;
  private readonly timeoutMs: number;

  constructor(
    private readonly redis: Redis,
    readonly durability: StoreDurability = { mode: 'none', replicas: 0 },
  ) {
    this.timeoutMs = durability.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  /** Whether a durable write needs a wait after the reply (otherwise the reply itself is the proof, or paper). */
  get waits(): boolean {
    const { mode, replicas } = this.durability;
    return mode === 'waitaof' || (mode === 'fsync-always' && replicas > 0);
  }

  /** Runs a script; with `durable`, returns only once its effect is durable, else throws REDIS_NOT_DURABLE. */
  async eval(script: string, keys: readonly string[], args: readonly string[], durable: boolean): Promise<unknown> {
    if (!durable || !this.waits) return evalScript(this.redis, script, keys.length, ...keys, ...args);
    return this.withConnection(async (conn) => {
      let why = 'no reply';
      for (let round = 1; round <= MAX_ROUNDS; round += 1) {
        const replies = await conn.pipeline().client('ID').eval(script, keys.length, ...keys, ...args).call(...this.waitCommand()).client('ID').exec();
        const [idA, result, wait, idB] = replies ?? [];
        // A script error is final; anything else failing here is the connection (ioredis aborts the rest of a
        // pipeline whose connection closed after some replies), and the round is safe to repeat.
        const scriptError = result?.[0];
        if (scriptError instanceof Error && scriptError instanceof ReplyError) throw scriptError;
        const failed = idA?.[0] ?? result?.[0] ?? idB?.[0];
        if (!idA || !result || !idB || failed) {
          why = failed?.message ?? why;
          continue;
        }
        if (idA[1] !== idB[1]) {
          why = 'the connection changed between the write and the wait';
          continue;
        }
        this.confirm(wait);
        return result[1];
      }
      throw notDurable(`${why}, ${MAX_ROUNDS} times in a row`);
    });
  }

  /**
   * Waits until every write made so far (by any connection) is durable: a write on a dedicated connection, then the
   * wait, which covers everything before it since the AOF and the replication stream are sequential.
   */
  async barrier(key: string): Promise<void> {
    if (!this.waits) return;
    await this.eval("return redis.call('SET', KEYS[1], ARGV[1])", [key], [String(Date.now())], true);
  }

  /** Closes the dedicated connections. */
  async close(): Promise<void> {
    this.closed = true;
    const conns = [...this.open];
    this.open.clear();
    this.idle.length = 0;
    await Promise.all(conns.map((c) => c.quit().catch(() => c.disconnect())));
  }

  private waitCommand(): [string, ...string[]] {
    const { mode, replicas } = this.durability;
    return mode === 'waitaof' ? ['WAITAOF', '1', String(replicas), String(this.timeoutMs)] : ['WAIT', String(replicas), String(this.timeoutMs)];
  }

  private confirm(wait: [Error | null, unknown] | undefined): void {
    if (!wait || wait[0]) throw notDurable(`${this.waitCommand()[0]} failed: ${wait?.[0]?.message ?? 'no reply'}`);
    const { mode, replicas } = this.durability;
    const reply = wait[1];
    if (mode === 'waitaof') {
      const [local, remote] = Array.isArray(reply) ? reply.map(Number) : [0, 0];
      if (local !== 1 || (remote ?? 0) < replicas) throw notDurable(`WAITAOF confirmed the local AOF ${local ?? 0}/1 and ${remote ?? 0}/${replicas} replicas within ${this.timeoutMs} ms`);
      return;
    }
    if (Number(reply) < replicas) throw notDurable(`WAIT confirmed ${Number(reply)}/${replicas} replicas within ${this.timeoutMs} ms`);
  }

  private async withConnection<T>(work: (conn: Redis) => Promise<T>): Promise<T> {
    if (this.closed) throw notDurable('the store is closed');
    let conn = this.idle.pop();
    if (!conn) {
      conn = this.redis.duplicate({ connectionName: `${this.redis.options.connectionName ?? 'jup-keeper'}:durable` });
      // Errors reach the caller through the commands; the event alone would print an unhandled-error warning.
      conn.on('error', () => undefined);
      this.open.add(conn);
    }
    try {
      return await work(conn);
    } finally {
      if (this.closed) conn.disconnect();
      else this.idle.push(conn);
    }
  }
}

function notDurable(why: string): KeeperError {
  return new KeeperError('REDIS_NOT_DURABLE', 'retry', `the write could not be confirmed durable: ${why}; nothing that depends on it may be sent yet`);
}
