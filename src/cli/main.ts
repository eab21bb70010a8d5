// Entry of the `jup-keeper` binary (bin/jup-keeper.js loads it through tsx). A composition only: each command
// group lives in its own file under ./commands and is registered here; add `run`, `sim`, `status`... the same way.
import { config } from 'dotenv';
import { exitOnBrokenPipe } from './output.js';
import { createCli, runCli } from './program.js';
import { registerConfigCommands } from './commands/config.js';
import { registerRunCommand } from './commands/run.js';
import { invokesSim, registerSimCommand } from './commands/sim.js';
import { registerStatusCommand } from './commands/status.js';
import { registerIntentsCommand } from './commands/intents.js';
import { registerTradesCommand } from './commands/trades.js';
import { registerKillSwitchCommand } from './commands/killSwitch.js';
import { registerSendCommand } from './commands/send.js';
import {
  registerLookupCommands,
  registerOrderCommands,
  registerPredictionCommands,
  registerQuoteCommand,
  registerTokenCommands,
} from './commands/index.js';

// Before the program reads JUPITER_* from the environment; `quiet` stops dotenv 17's banner on stdout.
config({ quiet: true });
exitOnBrokenPipe();

const { program, ctx } = createCli();
registerLookupCommands(program, ctx);
registerQuoteCommand(program, ctx);
registerTokenCommands(program, ctx);
registerPredictionCommands(program, ctx);
registerOrderCommands(program, ctx);
registerConfigCommands(program, ctx);
registerRunCommand(program, ctx);
registerSimCommand(program, ctx);
registerStatusCommand(program, ctx);
registerIntentsCommand(program, ctx);
registerTradesCommand(program, ctx);
registerKillSwitchCommand(program, ctx);
registerSendCommand(program, ctx);

// `sim` has a --tier and --api-key of its own (the simulated gateway's): options after `sim` are its, not the client's.
if (invokesSim(process.argv.slice(2))) program.enablePositionalOptions();

process.exitCode = await runCli(program, ctx, process.argv);
