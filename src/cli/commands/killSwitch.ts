import { Option, type Command } from 'commander';
import { KILL_SWITCH_MODES, type KillSwitchMode, type KillSwitchState } from '../../engine/killSwitch.js';
import { KillSwitchStore } from '../../store/killSwitch.js';
import type { CliContext } from '../context.js';
import { withLocatedKeeper, type LocatedKeeper } from './locate.js';
import { formatAge, withRedisArgs, type RedisArgs } from './redisArgs.js';

interface KillSwitchOptions extends RedisArgs {
  mode: KillSwitchMode;
  reason?: string;
  cancelResting?: boolean;
}

/** What `kill-switch ... --json` prints. */
export interface KillSwitchDocument {
  prefix: string;
  engaged: boolean;
  mode: KillSwitchMode | null;
  reason: string | null;
  /** Unix ms when it was engaged. */
  at: number | null;
  by: string | null;
}

/**
 * Registers `kill-switch on|off|status`: the deployment's kill switch in Redis. Every worker reads it before it
 * builds or signs anything, so `on` stops new orders within one job; transactions already signed may still be
 * confirmed (they are committed). `--mode reduce-only` lets only intents that shrink a position through. Without
 * --prefix or --config the switch is the running keeper's, found as `status` finds it (withLocatedKeeper): typed in
 * another shell after `npm start`, `kill-switch on` stops that bot.
 */
export function registerKillSwitchCommand(program: Command, ctx: CliContext): void {
  const group = program.command('kill-switch').description('stop a running keeper from building or signing anything new (or only let it reduce positions)');
  withRedisArgs(
    group
      .command('on')
      .description('engage the kill switch')
      .addOption(new Option('--mode <mode>', 'halt: nothing new; reduce-only: only intents that shrink a position').choices(KILL_SWITCH_MODES).default('halt'))
      .option('--reason <text>', 'why (shown in status and in every refused intent)')
      .option('--cancel-resting', "also cancel the wallet's open trigger, recurring and prediction orders (the running keeper does it within a few seconds)"),
    { locate: true },
  ).action(async (opts: KillSwitchOptions) => {
    const reason = (opts.reason ?? 'engaged from the command line').slice(0, 500);
    const { loc, state } = await withLocatedKeeper(opts, async (redis, loc) => ({ loc, state: await new KillSwitchStore(redis, loc.prefix).engage(opts.mode, reason, 'cli', Date.now(), { cancelResting: opts.cancelResting === true }) }));
    const cancels = state.cancelResting ? "; the running keeper cancels the wallet's resting orders (see `kill-switch status`)" : '';
    print(ctx, opts, document(loc.prefix, state), `kill switch ENGAGED (${state.mode}) for ${where(loc)}: ${state.reason}${cancels}\n`);
  });
  withRedisArgs(group.command('off').description('release the kill switch'), { locate: true }).action(async (opts: RedisArgs) => {
    const { loc, was } = await withLocatedKeeper(opts, async (redis, loc) => ({ loc, was: await new KillSwitchStore(redis, loc.prefix).release(Date.now(), 'cli') }));
    print(ctx, opts, document(loc.prefix, null), was ? `kill switch released for ${where(loc)}\n` : `kill switch was not engaged for ${where(loc)}\n`);
  });
  withRedisArgs(group.command('status').description('show the kill switch'), { locate: true }).action(async (opts: RedisArgs) => {
    const { loc, state } = await withLocatedKeeper(opts, async (redis, loc) => ({ loc, state: await new KillSwitchStore(redis, loc.prefix).read() }));
    const text = state ? `kill switch ENGAGED (${state.mode}) for ${where(loc)} by ${state.by}${state.at > 0 ? ` ${formatAge(Date.now() - state.at)} ago` : ''}: ${state.reason}\n${cancelRestingLine(state)}` : `kill switch off for ${where(loc)}\n`;
    print(ctx, opts, document(loc.prefix, state), text);
  });
}

/** The deployment the command acted on, and how it was found when no flag named it. */
function where(loc: LocatedKeeper): string {
  const how = loc.how === 'heartbeat' ? ' (the keeper running now)' : loc.how === 'default-config' ? ' (./config/paper.yaml)' : loc.how === 'default' ? ' (the default: no keeper is running and no --prefix was given)' : '';
  const others = loc.othersAlive.length > 0 ? `; other keepers alive on this Redis: ${loc.othersAlive.join(', ')}` : '';
  return `${loc.prefix}${how}${others}`;
}

function document(prefix: string, s: KillSwitchState | null): KillSwitchDocument {
  return { prefix, engaged: s !== null, mode: s?.mode ?? null, reason: s?.reason ?? null, at: s && s.at > 0 ? s.at : null, by: s?.by ?? null };
}

/** How the switch's cancel-resting request stands, as a line (empty without one). */
function cancelRestingLine(s: KillSwitchState): string {
  const r = s.cancelResting;
  if (!r) return '';
  return r.doneAt === null ? "resting orders: the keeper is cancelling the wallet's open orders\n" : `resting orders: none left (cancelled ${formatAge(Date.now() - r.doneAt)} ago)\n`;
}

function print(ctx: CliContext, opts: RedisArgs, doc: KillSwitchDocument, text: string): void {
  if (opts.json) ctx.io.json(doc);
  else ctx.io.out(text);
}
