/**
 * `loopgate fuzz`: property-based fuzzing of the loop. Generates scenarios (the
 * provider's answers and faults, tool behaviours, permissions, inbox
 * interleavings, budgets, compaction, store failures, crashes), runs each through
 * the second host and checks every invariant; on a violation it shrinks the case
 * and writes it as a scenario file that `loopgate run FILE` reproduces, plus the
 * run's reports. Exit 0 every invariant held, 1 a violation, 2 usage errors.
 */
import { join, relative, resolve } from 'node:path';
import { configFoundAbove } from '../config-found-above.ts';
import { failureInfo, writeCounterexample } from '../../fuzz/counterexample.ts';
import { holdWorkingFolder } from '../working-folder.ts';
import { parseDuration } from '../../fuzz/duration.ts';
import { fuzzResults } from '../../fuzz/report.ts';
import { reproduce, reproduceOnLoop } from '../../fuzz/reproduce.ts';
import { peerLoopOf } from '../peer-loop.ts';
import { sameFailure } from '../../fuzz/behind-the-port.ts';
import type { Invariant } from '../../harness/invariants/index.ts';
import { suiteInvariants } from '../../harness/suites.ts';
import { defaultReportDir, loadConfig, type ResolvedConfig } from '../../config/load-config.ts';
import { FuzzArgsThrew, fuzzCasesFor } from '../../fuzz/fuzz-agent.ts';
import { runFuzz, type FuzzCaseAt, type FuzzProgress } from '../../fuzz/run-fuzz.ts';
import type { Activity } from '../watchdog.ts';
import { closestName } from '../../kernel/index.ts';
import type { RunOptions } from '../../harness/second-host.ts';
import { REPORTERS } from '../../report/reporters.ts';
import { fuzzSubject, nothingChecked } from '../../report/results.ts';
import { parseReporters, UnknownReporterError, writeReports } from '../../report/write.ts';
import { ensureDirectory } from '../../files/index.ts';
import { printableLines } from '../../report/terminal-text.ts';
import { EXIT } from '../exit-codes.ts';
import { earlierReports } from '../earlier-reports.ts';
import { DEFAULT_FUZZ_RUNS } from './fuzz-defaults.ts';
import { BOUNDS } from '../arguments.ts';
import { numberArg, UsageError } from '../usage-error.ts';
import { VERSION } from '../version.ts';
import { declaredSecrets, redactOutputAlso } from '../redacted-output.ts';

export interface FuzzArgs {
  /** Numbers, or the text typed on the command line (checked here, so a bad value is named as typed). */
  runs?: number | string;
  seed?: number | string;
  time?: string;
  path?: string;
  invariant?: string[];
  config?: string;
  /** The agent to fuzz (default: the config's fuzz.agent, else its default agent). */
  agent?: string;
  /** The loop to fuzz: loopgate, ai-sdk, openai-agents (default: the config's loop, else loopgate). */
  loop?: string;
  /** Default: the config's `out`, else reports/. */
  out?: string;
  /** Default: the config's reporters, else all. */
  reporter?: string[];
  verbose?: boolean;
}

export interface FuzzIo {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
  readonly tty: boolean;
  /** Told which run is under way (the watchdog's, in the CLI: a run that never yields is named). */
  readonly activity?: Activity;
}

/** The words for a fuzz case, as the watchdog tells it. */
function fuzzCaseLabel(at: FuzzCaseAt): string {
  return at.shrinking
    ? `a shrink step after fuzz run ${at.run} of seed ${at.seed}`
    : `fuzz run ${at.run} of seed ${at.seed} (loopgate fuzz --seed ${at.seed} --runs ${at.run} reaches it)`;
}

export { DEFAULT_FUZZ_RUNS };

/** The longest `--time`: a day. */
const MAX_FUZZ_TIME_MS = 24 * 3_600_000;
/**
 * Past any run a search reaches — --runs at most 10,000,000, or --time at most 24 hours (over 1,000 runs a second):
 * a --path beyond is a typo (review of stop 65, MED-2: 10,000,000 refused a path a long --time search can print).
 */
const MAX_PATH_RUN = 100_000_000;

function parseArgs(args: FuzzArgs, config: ResolvedConfig) {
  const runsArg = args.runs !== undefined ? numberArg('runs', args.runs, BOUNDS.fuzzRuns) : undefined;
  const seed = args.seed !== undefined ? numberArg('seed', args.seed, BOUNDS.seed) : undefined;
  let timeLimitMs: number | undefined;
  if (args.time !== undefined) {
    timeLimitMs = parseDuration(String(args.time));
    if (timeLimitMs === undefined) throw new UsageError(`--time ${String(args.time)}: expected a duration such as 30s, 5m or 1h`);
    if (timeLimitMs > MAX_FUZZ_TIME_MS)
      throw new UsageError(`--time ${String(args.time)}: at most 24h (a longer search is several runs, each with its own --seed)`);
  }
  if (args.path !== undefined) {
    if (!/^\d+(:\d+)*$/.test(String(args.path)))
      throw new UsageError(`--path ${String(args.path)}: expected fast-check's path, numbers separated by colons (e.g. 41:2:0), as printed with a failure`);
    if (args.seed === undefined) throw new UsageError('--path needs the --seed it was found with');
  }
  const all = suiteInvariants(config.invariants);
  const invariants =
    args.invariant && args.invariant.length > 0
      ? [...new Set(args.invariant)].map((id) => {
          const found = all.find((i) => i.id === id);
          if (!found) {
            const ids = all.map((i) => i.id);
            // Ids are long: an id holding what was typed (its name without the number) is meant first, then the nearest spelling.
            const near = (id.length >= 4 ? ids.find((known) => known.includes(id)) : undefined) ?? closestName(id, ids);
            throw new UsageError(`--invariant ${id}: no such invariant${near ? ` (did you mean ${near}?)` : ''}; known: ${ids.join(', ')}`);
          }
          return found;
        })
      : all;
  const defined = [...config.registry.agents.keys()];
  // Several agents and none named: fuzzing a guess (or the tool-less `none`) would pass on nothing.
  const agent = args.agent ?? config.fuzz.agent ?? config.registry.defaultAgent ?? (defined.length === 0 ? 'none' : undefined);
  // No agent registered and none named: only the scripted probe would run, and pass on nothing of yours (as `run` with no scenario).
  const nothing = defined.length === 0 && args.agent === undefined && config.fuzz.agent === undefined;
  if (agent === undefined)
    throw new UsageError(
      `${config.file} defines ${defined.length} agents (${defined.join(', ')}) and names none to fuzz: choose one with --agent NAME, or set fuzz.agent (or defaultAgent) in the config`,
    );
  if (agent !== 'none' && !config.registry.agents.has(agent))
    throw new UsageError(`--agent ${agent}: no such agent in ${config.file}; defined: ${defined.join(', ') || 'none'}`);
  let reporters;
  try {
    reporters = parseReporters(args.reporter ?? config.reporters ?? [...REPORTERS]);
  } catch (error) {
    if (error instanceof UnknownReporterError) throw new UsageError(error.message);
    throw error;
  }
  const runs = runsArg ?? (timeLimitMs === undefined ? DEFAULT_FUZZ_RUNS : undefined);
  // A path's first number is the run it replays (fast-check goes on from there for --runs more): one past any search's
  // runs had fast-check generate up to it for minutes, then the search "failed" (outside probe 64, F12).
  const replayed = args.path === undefined ? undefined : Number(String(args.path).split(':')[0]);
  if (replayed !== undefined && replayed >= MAX_PATH_RUN)
    throw new UsageError(
      `--path ${String(args.path)}: names run ${String(args.path).split(':')[0]}, past the runs any search makes (fewer than ${MAX_PATH_RUN}, in its 24 hours at most); give the --path printed with the failure`,
    );
  const out = args.out ?? config.out ?? defaultReportDir(config);
  // Reports written in among the scenario files, as `run` refuses (outside probe 53, LOW-2). The counterexamples'
  // folder is marked as loopgate's output wherever it is, so that no scenario folder takes them as cases.
  if (config.scenarios.some((folder) => resolve(folder) === resolve(out)))
    throw new UsageError(
      `${args.out !== undefined ? `--out ${out}` : `the config's out (${out})`}: is a scenario folder of ${relative(process.cwd(), config.file) || config.file}; write the fuzz reports elsewhere (the default is reports/)`,
    );
  return { runs, seed, timeLimitMs, invariants, reporters, agent, nothing, out };
}

export function progressLine(p: FuzzProgress): string {
  const rate = `${Math.round(p.runsPerSecond)} runs/s, ${Math.round(p.turnsPerSecond)} turns/s`;
  const head = `fuzz: ${p.runs} runs, ${p.turns} turns in ${(p.elapsedMs / 1000).toFixed(1)} s (${rate})`;
  return p.shrinking ? `${head}; violation found, shrinking (${p.shrinks} tries)` : head;
}

/** For tests only (no command-line flag reaches it): host parts such as broken seams, and extra invariants. */
export interface FuzzTesting {
  readonly host?: Omit<RunOptions, 'seed'>;
  readonly invariants?: readonly Invariant[];
}

export async function fuzz(args: FuzzArgs, io: FuzzIo, testing: FuzzTesting = {}): Promise<number> {
  const interrupt = { stop: () => {} };
  try {
    return await search(args, io, testing, interrupt);
  } finally {
    interrupt.stop();
  }
}

async function search(args: FuzzArgs, io: FuzzIo, testing: FuzzTesting, interrupt: { stop: () => void }): Promise<number> {
  const config = await loadConfig({ path: args.config });
  const above = configFoundAbove(config, args.config);
  if (above) io.err(above);
  // What it prints from here (a scenario refused for an agent's secret pasted in as a key) names none of its agents' secrets.
  redactOutputAlso(declaredSecrets(config.registry));
  const parsed = parseArgs(args, config);
  const { runs, seed, timeLimitMs, reporters, out } = parsed;
  const invariants = [...parsed.invariants, ...(testing.invariants ?? [])];
  if (parsed.nothing) {
    io.err(
      `loopgate: nothing was checked: ${config.file} defines no agents to fuzz (only loopgate's scripted probe would run); register yours under agents:\n`,
    );
    return EXIT.failed;
  }
  // The loop fuzzed: the config's (or --loop's) when it is not loopgate's own — a team's loop behind the port, or an
  // adapter of a framework's — its cases cut to what it declares and judged from outside, as `loopgate run` judges it.
  const loop = await peerLoopOf(args.loop, config);
  const configured = typeof config.loop === 'string' ? config.loop : config.loop?.id;
  // `--loop loopgate` over a config whose agent runs in another loop: that loop is not fuzzed, and every report says so.
  const peer = loop === undefined && configured !== undefined && configured !== 'loopgate' ? configured : undefined;
  if (peer !== undefined) io.err(`loopgate: fuzz drives loopgate's own loop (--loop loopgate): the config's loop ${peer} is not fuzzed\n`);
  if (loop)
    io.err(
      `loopgate: fuzzing ${loop.id} (${loop.version}) behind the port: each case cut to what it declares (${loop.capabilities.supports.join(', ') || 'nothing beyond messages, cancels and tools'}), judged from outside\n`,
    );
  // A counterexample reproduces through the config the search ran with (another holds other invariants, or none), on
  // the loop it was found on: loopgate's own where the config names another, the one asked for where it was asked.
  const runIt = [
    'loopgate run',
    ...(args.config !== undefined ? [`--config ${quoteArg(String(args.config))}`] : []),
    ...(peer !== undefined
      ? ['--loop loopgate']
      : args.loop !== undefined && loop !== undefined && args.loop !== configured
        ? [`--loop ${quoteArg(args.loop)}`]
        : []),
  ].join(' ');
  let cases;
  try {
    cases = await fuzzCasesFor(config.registry, parsed.agent, config.fuzz.args);
  } catch (error) {
    throw new UsageError(`${config.file}: ${(error as Error).message}`);
  }
  const host = { agents: config.registry, ...testing.host };
  // Where reports and counterexamples go is settled before the first case runs.
  ensureDirectory(out, 'report directory');
  // From here until its reports are written, an interrupt leaves no report in `out` (as `run`).
  const earlier = earlierReports(out, reporters);
  interrupt.stop = earlier.stop;
  earlier.remove();
  const startedAt = new Date();
  const backToStart = holdWorkingFolder(io.err);
  let lastLine = 0;
  let running: string | undefined;
  const result = await runFuzz({
    ...(runs !== undefined ? { runs } : {}),
    ...(seed !== undefined ? { seed } : {}),
    ...(timeLimitMs !== undefined ? { timeLimitMs } : {}),
    ...(args.path !== undefined ? { path: String(args.path) } : {}),
    invariants,
    cases,
    host,
    ...(loop ? { loop: { factory: loop, agents: config.registry } } : {}),
    progressEveryMs: io.tty ? 250 : 5_000,
    onCase: (at) => {
      if (running !== undefined) io.activity?.end(running);
      running = fuzzCaseLabel(at);
      io.activity?.start(running);
    },
    onProgress: (p) => {
      if (io.tty) io.err(`\r\u001b[2K${progressLine(p)}`);
      else if (p.elapsedMs - lastLine >= 5_000) {
        lastLine = p.elapsedMs;
        io.err(`${progressLine(p)}\n`);
      }
    },
  }).catch((error: unknown) => {
    // A fuzz.args arbitrary that throws only after the draws made above: named, exit 2.
    if (error instanceof FuzzArgsThrew) throw new UsageError(`${config.file}: ${error.message}`);
    throw error;
  });
  if (running !== undefined) io.activity?.end(running);
  if (io.tty) io.err('\n');
  backToStart();
  // A path into a shrink tree past its candidates replays nothing: no pass (outside probe 64, F13: exit 0, "0 runs").
  if (args.path !== undefined && result.runs === 0 && !result.interrupted)
    throw new UsageError(
      `--path ${String(args.path)}: names no case of seed ${result.seed}'s search (0 runs replayed); give the --path printed with the failure`,
    );
  const finishedAt = new Date();

  let counterexampleFile: string | undefined;
  let reproduces: { ok: boolean; detail: string } | undefined;
  const failure = result.failure;
  if (failure) {
    // The violation is the finding: a counterexample that cannot be written is reported with it, never instead of it.
    const file = await writeCounterexample(join(out, 'counterexamples'), failure.scenario, {
      ...failureInfo(result, failure),
      ...(testing.host
        ? {
            reproduce: `Reproduce: through the same host parts the fuzz run had, reproduce(<this file>, { host, invariants }) (src/fuzz/reproduce.ts); loopgate run alone does not have them. Replay the search: --seed ${result.seed} --path ${failure.path}`,
          }
        : runIt !== 'loopgate run'
          ? { reproduce: `Reproduce: ${runIt} <this file> (exit 1). Replay the search: loopgate fuzz --seed ${result.seed} --path ${failure.path}` }
          : {}),
    }).catch((error: unknown) => {
      reproduces = {
        ok: false,
        detail: `the counterexample could not be written (a loopgate bug; please report it): ${(error as Error)?.message ?? String(error)}; replay with --seed ${result.seed} --path ${failure.path}`,
      };
      return undefined;
    });
    if (file !== undefined) {
      counterexampleFile = relative(process.cwd(), file) || file;
      const replay = `the replay of the counterexample ${file}`;
      io.activity?.start(replay);
      const failing = loop
        ? await reproduceOnLoop(file, {
            loop,
            registry: config.registry,
            invariants: suiteInvariants(config.invariants),
            judged: !config.bundled && configured === loop.id ? 'all' : 'outcomes',
            replies: config.replies,
          })
        : await reproduce(file, { host, invariants: [...config.invariants, ...(testing.host ? [failure.invariant] : [])] });
      io.activity?.end(replay);
      const how = testing.host ? `${counterexampleFile}, run through the same host parts,` : `${runIt} ${counterexampleFile}`;
      // Behind the port it must fail as the search found it (another failing check — a trigger that never fired — is not it).
      const found = loop ? sameFailure(failing, failure.invariant.id) : failing;
      reproduces =
        found.length > 0
          ? { ok: true, detail: `${how} fails: ${found[0]!.name}: ${found[0]!.message}` }
          : {
              ok: false,
              detail:
                failing.length > 0
                  ? `${runIt} ${counterexampleFile} fails, but not on ${failure.invariant.id} (${failing.map((c) => c.name).join(', ')}); replay with --seed ${result.seed} --path ${failure.path}`
                  : `${runIt} ${counterexampleFile} passes: ${failure.invariant.id} is not among the checks made on every scenario here; replay with --seed ${result.seed} --path ${failure.path}`,
            };
    }
  }
  const results = fuzzResults({
    result,
    startedAt,
    finishedAt,
    version: VERSION,
    ...(counterexampleFile ? { counterexampleFile } : {}),
    ...(reproduces ? { reproduces } : {}),
    subject: fuzzSubject(
      parsed.agent,
      (cases.tools ?? []).map((t) => t.name),
      (cases.tools ?? []).filter((t) => t.undrawn).map((t) => t.name),
      peer,
    ),
    ...(loop ? { loop: { name: loop.id, version: loop.version } } : {}),
  });
  backToStart(); // again: a counterexample's replay (fuzz) runs the tools once more
  const written = await writeReports(results, { reporters, outDir: out, console: { verbose: args.verbose ?? false } });
  interrupt.stop(); // the reports are this search's, whole
  if (written.console) io.out(written.console);
  for (const path of Object.values(written.files)) io.err(`wrote ${path}\n`);
  io.err(
    `${progressLine({ runs: result.runs, turns: result.turns, elapsedMs: result.durationMs, runsPerSecond: result.runsPerSecond, turnsPerSecond: result.turnsPerSecond, shrinking: false, shrinks: 0 })}, seed ${result.seed}${result.interrupted ? ' (time limit reached)' : ''}\n`,
  );
  // A replay goes on from the path (fast-check tries what follows it): say what the path itself gave.
  if (args.path !== undefined && !failure)
    io.err(
      `replayed from --path ${String(args.path)}: no violation in the ${result.runs} run(s) from there (fast-check goes on past the path; a counterexample fixed since it was found holds now)\n`,
    );
  if (failure) {
    // The message quotes generated text (model replies, tool output): shown escaped, never sent to the terminal.
    io.err(`violation of ${failure.invariant.id}: ${printableLines(failure.message)}\n`);
    io.err(`counterexample (shrunk in ${failure.shrinks} step(s)): ${counterexampleFile}\n`);
    const how = !reproduces!.ok
      ? `loopgate fuzz --seed ${result.seed} --path ${failure.path}`
      : testing.host
        ? `${counterexampleFile} through the same host parts`
        : `${runIt} ${counterexampleFile}`;
    io.err(`${reproduces!.ok ? 'reproduce' : 'replay'}: ${how}\n`);
    return EXIT.failed;
  }
  // Behind the port, a search in which the loop could run no case checked nothing, whatever else its reports hold.
  if (result.skipped && result.skipped.runs === result.runs) {
    io.err(`loopgate: nothing was checked: ${result.loop} could not run any of the ${result.runs} generated case(s): ${result.skipped.reason}\n`);
    return EXIT.failed;
  }
  // Every invariant held, over cases that never held such a fault: the fuzzer is broken, and the run checked less than it says.
  if (result.undrawn.length > 0) {
    io.err(
      `fuzz: drew no ${result.undrawn.join(', no ')} in ${result.runs} run(s), where each should appear many times over: the fuzzer's generators are broken (a loopgate bug; please report it with the seed), so the invariants were not checked against such faults\n`,
    );
    return EXIT.failed;
  }
  // Every invariant asked for judged in no run, and too few runs to judge what was drawn: nothing was checked, as its
  // reports say (outside probe 42, F5: a nightly `--invariant X --runs 3` passed having judged nothing).
  if (nothingChecked(results)) {
    io.err(`loopgate: nothing was checked: all ${results.summary.total} case(s) were skipped (too few runs: give --runs or --time)\n`);
    return EXIT.failed;
  }
  return EXIT.passed;
}

/** A path as a shell argument: as it is when it needs no quoting. */
function quoteArg(text: string): string {
  return /^[\w./@:+-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}
