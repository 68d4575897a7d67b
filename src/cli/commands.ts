/** Every `loopgate` command's definition (small: each handler imports what it needs when it runs). */
import { checkHostCommand } from './commands/check-host-command.ts';
import { contractCommand } from './commands/contract-command.ts';
import { decodeCommand } from './commands/decode-command.ts';
import { fuzzCommand } from './commands/fuzz-command.ts';
import { mergeReportsCommand } from './commands/merge-reports-command.ts';
import { replayCommand } from './commands/replay-command.ts';
import { runCommand } from './commands/run-command.ts';
import { tablesCommand } from './commands/tables-command.ts';

export const COMMANDS = [runCommand, tablesCommand, contractCommand, decodeCommand, replayCommand, mergeReportsCommand, fuzzCommand, checkHostCommand];
