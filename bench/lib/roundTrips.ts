import type { Redis } from 'ioredis';

/**
 * Counts the round trips a code path makes to Redis in sequence: every command goes through `sendCommand`, and a
 * stretch during which at least one command is in flight is one round trip on the path (commands sent together,
 * pipelined or awaited together with Promise.all, overlap and count once; each awaited one after another counts).
 */
export function traceRoundTrips(redis: Redis): { roundTrips(): number; commands(): number; reset(): void; restore(): void } {
  const original = redis.sendCommand.bind(redis);
  let inFlight = 0;
  let periods = 0;
  let commands = 0;
  const traced: typeof redis.sendCommand = (command, stream) => {
    if (inFlight === 0) periods += 1;
    inFlight += 1;
    commands += 1;
    const done = () => {
      inFlight -= 1;
    };
    command.promise.then(done, done);
    return original(command, stream);
  };
  redis.sendCommand = traced;
  return {
    roundTrips: () => periods,
    commands: () => commands,
    reset: () => {
      periods = 0;
      commands = 0;
    },
    restore: () => {
      redis.sendCommand = original;
    },
  };
}
