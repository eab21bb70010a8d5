import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultConfigLocation } from '../../src/cli/commands/locate.js';
import { ROOT, scratchDir } from '../helpers/keeper.js';

// Read-only commands find the keeper `npm start` runs through ./config/paper.yaml's redis section alone.
describe('the keeper ./config/paper.yaml points at', () => {
  const scratch = scratchDir('locate');
  afterAll(() => scratch.cleanup());
  let n = 0;
  /** A working directory whose config/paper.yaml is `text`. */
  const cwd = (text: string): string => {
    const dir = join(scratch.dir, `cwd-${n++}`);
    mkdirSync(join(dir, 'config'), { recursive: true });
    writeFileSync(join(dir, 'config/paper.yaml'), text);
    return dir;
  };

  it('is the prefix and Redis URL the file writes', () => {
    expect(defaultConfigLocation(cwd('redis: { prefix: jk-here, url: "redis://127.0.0.1:6390" }\n'))).toEqual({ prefix: 'jk-here', redisUrl: 'redis://127.0.0.1:6390' });
    expect(defaultConfigLocation(ROOT)).toEqual({ prefix: 'jk-paper', redisUrl: undefined });
  });

  it('is found even when the rest of the file does not validate', () => {
    const text = 'venue: { kind: nowhere }\nwallet: {}\nredis: { prefix: jk-broken }\nstrategies:\n  - { id: x, strategy: no-such-strategy, schedule: { every: 1s } }\n';
    expect(defaultConfigLocation(cwd(text))).toEqual({ prefix: 'jk-broken', redisUrl: undefined });
  });

  it('names no prefix when the file writes none (the schema default is not one the file chose)', () => {
    expect(defaultConfigLocation(cwd('redis: { url: "redis://127.0.0.1:6391" }\n'))).toEqual({ prefix: undefined, redisUrl: 'redis://127.0.0.1:6391' });
    expect(defaultConfigLocation(cwd('venue: { kind: simulator }\n'))).toEqual({ prefix: undefined, redisUrl: undefined });
  });

  it('points nowhere when there is no file, it is not YAML, or its redis section is invalid', () => {
    expect(defaultConfigLocation(join(scratch.dir, 'empty'))).toBeUndefined();
    expect(defaultConfigLocation(cwd('redis: { prefix: [jk\n'))).toBeUndefined();
    expect(defaultConfigLocation(cwd('- just\n- a list\n'))).toBeUndefined();
    expect(defaultConfigLocation(cwd('redis: { prefix: "two words" }\n'))).toBeUndefined();
    expect(defaultConfigLocation(cwd('redis: { prefix: jk, url: "http://not-redis" }\n'))).toBeUndefined();
  });
});
