/**
 * A config the command found in a folder above the working directory, named on stderr: run in a sub-folder of a
 * team's project, `loopgate run` takes the project's config, and without a word a user expecting "without a config:
 * everything bundled" read the run as the bundled suite's (outside probe 63).
 */
import { dirname, relative, resolve } from 'node:path';
import type { ResolvedConfig } from '../config/load-config.ts';

/** The line to print, or nothing when the config was given, is the bundled one, or sits in the working directory. */
export function configFoundAbove(config: ResolvedConfig, given: string | undefined, cwd = process.cwd()): string | undefined {
  if (given !== undefined || config.bundled || dirname(config.file) === resolve(cwd)) return undefined;
  return `loopgate: using ${relative(cwd, config.file)}, found above this folder (--config names another)\n`;
}
