/**
 * `loopgate run [paths..]`: the pre-release regression gate. It reads
 * `loopgate.config.ts` (found upward from the working directory, or `--config`)
 * for the agents, scenarios and invariants, and runs the config's scenarios, or
 * the scenario files given. With no config of the user's it runs everything
 * bundled: the state-table fixtures, the provider contract suite on the fakes and
 * the example agent's scenarios. Writes the reports; exit 0 all passed, 1
 * failures or regressions — or nothing checked — 2 bad input. The reports an
 * earlier run left in the report directory are removed before the cases run, so
 * a run that is interrupted (exit 130/143, main.ts) or dies leaves none there
 * that could pass for its own.
 */
import { projectCommit } from '../project-commit.ts';
import { configFoundAbove } from '../config-found-above.ts';
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, relative, resolve, sep } from 'node:path';
import type { Case } from '../../harness/cases.ts';
import { RegexTimeoutError } from '../../harness/bounded-regex.ts';
import { reportedId, runCases, selectCases } from '../../harness/runner.ts';
import { defaultCases, loadSuiteScenarios, scenarioCasesFrom, suiteInvariants, type SuiteContext } from '../../harness/suites.ts';
import type { LiveOptions } from '../../harness/live.ts';
import { HOST_MODES, type HostMode } from '../../harness/scenario/schema.ts';
import { DEFAULT_HOSTS } from '../../harness/suite-context.ts';
import { caseIdRoot, defaultReportDir, loadConfig, type ResolvedConfig } from '../../config/load-config.ts';
import { compareWithBaseline, readBaselineFile, writeBaselineFile, type Baseline } from '../../report/baseline.ts';
import { ReportFileError } from '../../report/file-error.ts';
import { createProgress } from '../../report/progress.ts';
import { nothingChecked, RESULTS_SCHEMA, runPassed, suiteDigest, summarize, type RunResults } from '../../report/results.ts';
import { checkOutputPath, ensureDirectory, sameFile } from '../../files/index.ts';
import { REPORT_FILES, REPORTERS } from '../../report/reporters.ts';
import { parseReporters, removeReports, writeReports } from '../../report/write.ts';
import type { UpdateSink } from '../../harness/update/update-case.ts';
import type { UpdateResult } from '../../harness/update/update-scenario.ts';
import { EXIT } from '../exit-codes.ts';
import { peerLoopOf } from '../peer-loop.ts';
import { earlierReports } from '../earlier-reports.ts';
import { BOUNDS } from '../arguments.ts';
import { numberArg, UsageError } from '../usage-error.ts';
import type { LoopUnderTestFactory } from '../../harness/loop-port/peer-world.ts';
import { VERSION } from '../version.ts';
import type { Activity } from '../watchdog.ts';
import {
  compareVerdicts,
  notSelected,
  readVerdictsFile,
  renderVerdictComparison,
  verdictsOf,
  writeVerdictsFile,
  type PinnedVerdicts,
} from '../../report/peer-verdicts.ts';
import { declaredSecrets, redactOutputAlso } from '../redacted-output.ts';
import { holdWorkingFolder } from '../working-folder.ts';
import { parseRequire, requiredCases, requiredResult } from './required-cases.ts';

export interface RunArgs {
  paths?: string[];
  config?: string;
  /** Default: the config's reporters, else all. */
  reporter?: string[];
  /** Default: the config's `out`, else reports/. */
  out?: string;
  grep?: string;
  /** loop, production or both. Default: the config's `host`, else both. */
  host?: string;
  /** The loop the agents run in: loopgate (default), ai-sdk, openai-agents. Default: the config's `loop`, else loopgate. */
  loop?: string;
  concurrency?: number;
  shard?: string;
  seed: number;
  baseline?: string;
  updateBaseline?: boolean;
  /** Compare a peer loop's run with its pinned verdicts (the config's `verdicts:`), when it has some. Default true; `--no-verdicts`. */
  verdicts?: boolean;
  /** Record this run of a peer loop as its pinned verdicts (the config's `verdicts:` file for that loop). */
  updateVerdicts?: boolean;
  live?: boolean;
  provider?: string;
  repeat: number;
  verbose?: boolean;
  /** Rewrite the selected scenarios' recorded expectations from their runs (cases whose invariants hold). */
  update?: boolean;
  /** Cases (by id or title, as --grep) that must run: skipped, they fail the run. */
  require?: string[];
}

export function parseShard(text: string): { index: number; total: number } {
  const match = /^(\d+)\/(\d+)$/.exec(text);
  if (!match) throw new UsageError(`--shard ${text}: expected i/n, e.g. 1/2`);
  const index = Number(match[1]);
  const total = Number(match[2]);
  if (total < 1 || index < 1 || index > total) throw new UsageError(`--shard ${text}: i must be between 1 and n (n ≥ 1)`);
  return { index, total };
}

/** `--host`: the hosts the scenarios run through. */
export function parseHosts(text: string, flag = '--host'): readonly HostMode[] {
  if (text === 'both') return DEFAULT_HOSTS;
  if ((HOST_MODES as readonly string[]).includes(text)) return [text as HostMode];
  throw new UsageError(`${flag} ${JSON.stringify(text)}: expected loop, production or both`);
}

export function parseGrep(text: string): RegExp {
  try {
    return new RegExp(text);
  } catch (error) {
    throw new UsageError(`--grep ${JSON.stringify(text)}: not a regular expression: ${(error as Error).message}`);
  }
}

/** The cases --grep selects; a --grep that backtracks without end is named as typed. */
function selectGrepped(all: readonly Case[], text: string | undefined, grep: RegExp | undefined): Case[] {
  try {
    return selectCases(all, grep ? { grep } : {});
  } catch (error) {
    if (!(error instanceof RegexTimeoutError)) throw error;
    throw new UsageError(
      `--grep ${JSON.stringify(text)}: did not finish matching the case ids within ${error.limitMs} ms (it backtracks without end: simplify the pattern)`,
    );
  }
}

/**
 * The cases to run, from the config (or the paths given), with every scenario
 * checked against its agent before anything runs; a bad scenario file is a
 * `ScenarioFileError` (an InputError) with one line per problem. The state
 * tables and the contract suite (SDKs, msw) load only when they are run.
 */
async function collect(args: RunArgs, config: ResolvedConfig, hosts: readonly HostMode[], update?: UpdateSink): Promise<Case[]> {
  const given = args.paths !== undefined && args.paths.length > 0;
  const context: SuiteContext = {
    registry: config.registry,
    invariants: suiteInvariants(config.invariants),
    root: caseIdRoot(config, given ? args.paths! : undefined),
    hosts,
    ...(config.prices ? { prices: config.prices } : {}),
    replies: config.replies,
    ...(update ? { update } : {}),
  };
  const paths = given ? args.paths! : config.scenarios;
  if (args.live) {
    const options = liveOptions(args, await loadSuiteScenarios(paths, context), context);
    const { liveCases } = await import('../../harness/live.ts');
    return liveCases(options);
  }
  if (!config.bundled || given) return scenarioCasesFrom(paths, context);
  const [
    { tableCases },
    { loadBundledContractCases },
    { agentRefusalCases },
    { aiSdkContractCases },
    { openAiAgentsContractCases },
    { fuzzContractCases },
    { cliContractCases },
  ] = await Promise.all([
    import('../../../state-tables/cell-case.ts'),
    import('../../harness/bundled-contract.ts'),
    import('../../harness/agent-refusals/refusal-cases.ts'),
    import('../../loops/ai-sdk/contract-cases.ts'),
    import('../../loops/openai-agents/contract-cases.ts'),
    import('../../fuzz/contract-cases.ts'),
    import('../contract-cases.ts'),
  ]);
  const contract = await loadBundledContractCases();
  return defaultCases({
    tables: tableCases,
    // The peer adapters' own contracts (the AI SDK glues' claims, aiSdkAgent's refusals, openAiAgent) sit above the harness, in loops/;
    // the fuzzer's (its check of what it drew), in fuzz/; the command line's own, in cli/.
    contract: () => [...contract(), ...aiSdkContractCases(), ...openAiAgentsContractCases(), ...fuzzContractCases(), ...cliContractCases()],
    refusals: agentRefusalCases,
    scenarios: () => scenarioCasesFrom(paths, context),
  });
}

/**
 * The baseline to compare with — or, for --update-baseline, the file about to be
 * overwritten, which must be a baseline (or a results.json) already: never a
 * scenario, a config or anything else a mistyped flag points at.
 */
async function readBaseline(path: string, updating: boolean): Promise<Baseline> {
  try {
    return await readBaselineFile(path);
  } catch (error) {
    if (!updating || !(error instanceof ReportFileError)) throw error;
    throw new UsageError(
      `--update-baseline: refusing to overwrite ${error.message.startsWith(path) ? error.message : `${path}: ${error.message}`} (it overwrites only a loopgate baseline or results.json)`,
    );
  }
}

/**
 * For a run that selects part of the suite, which case ids it selected — by id,
 * so a baseline case whose file is gone still counts as selected when its path
 * falls under the paths given. Undefined for the whole suite. With `--grep` or
 * `--shard` nothing can be told from an id alone: no id is in scope.
 */
function selectedScope(args: RunArgs, config: ResolvedConfig, hosts: readonly HostMode[], byPattern: boolean): ((id: string) => boolean) | undefined {
  const paths = args.paths !== undefined && args.paths.length > 0 ? args.paths : undefined;
  const allHosts = config.hosts ?? DEFAULT_HOSTS;
  const someHosts = !(hosts.length === allHosts.length && hosts.every((h) => allHosts.includes(h)));
  if (!byPattern && !paths && !someHosts) return undefined;
  if (byPattern) return () => false;
  const root = caseIdRoot(config, paths);
  const prefixes = paths?.map((p) =>
    relative(root, resolve(p))
      .split(sep)
      .join('/')
      .replace(/\.ya?ml$/, ''),
  );
  return (id) => {
    const production = id.endsWith('@host');
    if (production ? !hosts.includes('production') : !hosts.includes('loop') && id.startsWith('scenario:')) return false;
    if (!prefixes) return true;
    if (!id.startsWith('scenario:')) return false;
    const path = id.slice('scenario:'.length).replace(/@host$/, '');
    return prefixes.some((p) => p === '' || path === p || path.startsWith(`${p}/`));
  };
}

function liveOptions(args: RunArgs, scenarios: LiveOptions['scenarios'], context: SuiteContext): LiveOptions {
  if (!args.provider) throw new UsageError('--live needs --provider anthropic|openai-chat|openai-responses');
  return { provider: args.provider, repeat: args.repeat, scenarios, context, env: process.env };
}

/** The cases of a peer loop: the applicable scenarios (and, for the bundled suite, table cells), each skipped with its reason where it cannot run. */
async function collectPeer(args: RunArgs, config: ResolvedConfig, loop: LoopUnderTestFactory, io: { err: (text: string) => void }): Promise<Case[]> {
  if (args.live) throw new UsageError(`--live runs loopgate's own loop against a real provider; it does not go with --loop ${loop.id}`);
  if (args.host !== undefined) throw new UsageError(`--host chooses loopgate's host; ${loop.id} has none (drop --host, or --loop loopgate)`);
  const given = args.paths !== undefined && args.paths.length > 0;
  const root = caseIdRoot(config, given ? args.paths! : undefined);
  // The config's assertions and judges: for the files to load, and for `assert` on the config's own loop.
  const context: SuiteContext = { registry: config.registry, invariants: suiteInvariants(config.invariants), root, replies: config.replies };
  const paths = given ? args.paths! : config.scenarios;
  // The config's own loop: its scenarios are the team's requirements of that loop, judged in full. Another loop
  // (`--loop` over a config written for its own, the bundled suite's loopgate lines among them) is compared.
  const own = !config.bundled && (typeof config.loop === 'string' ? config.loop : config.loop?.id) === loop.id;
  const suite = {
    loop,
    registry: config.registry,
    invariants: context.invariants,
    judged: own ? ('all' as const) : ('outcomes' as const),
    replies: config.replies,
  };
  const [{ peerScenarioCase }, loaded] = await Promise.all([import('../../harness/loop-port/peer-case.ts'), loadSuiteScenarios(paths, context)]);
  const cases = loaded.map((l) => peerScenarioCase(l, suite));
  io.err(`loopgate: gating ${loop.id} (${loop.version}${loop.glue ? `; history: ${loop.glue}` : ''}): peer cases run one at a time, on virtual timers\n`);
  if (!config.bundled || given) return cases;
  const { peerTableCases } = await import('../../../state-tables/peer-cell-case.ts');
  io.err(`loopgate: the provider contract suite checks loopgate's provider adapters, not a loop: not run with --loop ${loop.id}\n`);
  return [...peerTableCases(suite), ...cases];
}

type RunIo = {
  out: (text: string) => void;
  err: (text: string) => void;
  tty: boolean;
  columns?: number;
  /** Told which case runs (the watchdog's, in the CLI: a case that never yields is named). */
  activity?: Activity;
};

export async function run(args: RunArgs, io: RunIo): Promise<number> {
  const interrupt = { stop: () => {} };
  try {
    return await gate(args, io, interrupt);
  } finally {
    interrupt.stop();
  }
}

async function gate(args: RunArgs, io: RunIo, interrupt: { stop: () => void }): Promise<number> {
  numberArg('seed', args.seed, BOUNDS.seed);
  if (args.concurrency !== undefined) numberArg('concurrency', args.concurrency, BOUNDS.concurrency);
  numberArg('repeat', args.repeat, BOUNDS.repeat);
  if (!args.live && args.repeat !== undefined && Number(args.repeat) !== 1)
    throw new UsageError('--repeat is for --live runs (runs per live scenario); add --live or drop it');
  if (!args.live && args.provider !== undefined)
    throw new UsageError('--provider is for --live runs (the scripted run needs no provider); add --live or drop it');
  // Everything the user gave is checked before anything runs or is written: the flags,
  // then the inputs (baseline, scenario files), then the places the outputs go.
  const config = await loadConfig({ path: args.config });
  const above = configFoundAbove(config, args.config);
  if (above) io.err(above);
  // What it prints from here (a scenario refused for an agent's secret pasted in as a key) names none of its agents' secrets.
  redactOutputAlso(declaredSecrets(config.registry));
  const out = args.out ?? config.out ?? defaultReportDir(config);
  const reporters = parseReporters(args.reporter ?? config.reporters ?? [...REPORTERS]);
  // From here until its reports are written, an interrupt leaves no report in `out`; the baseline it reads is kept.
  const earlier = earlierReports(out, reporters, args.baseline ? [args.baseline] : []);
  interrupt.stop = earlier.stop;
  const shard = args.shard !== undefined ? parseShard(args.shard) : undefined;
  const grep = args.grep !== undefined ? parseGrep(args.grep) : undefined;
  const requirePatterns = parseRequire(args.require);
  const hosts = args.host !== undefined ? parseHosts(args.host) : (config.hosts ?? DEFAULT_HOSTS);
  if (args.updateBaseline && !args.baseline) throw new UsageError('--update-baseline needs --baseline FILE (where to write it)');
  // A partial run (paths, --grep, --shard, one host of several) judges, and updates, only the cases it selects.
  const inScope = selectedScope(args, config, hosts, Boolean(shard || grep));
  // A baseline the run is to rewrite where it writes a report (also through a link). Without --update-baseline the last
  // run's results.json is a baseline as documented (docs/results-schema.md): read before the reports replace it.
  if (args.updateBaseline && args.baseline) {
    const report = reporters.find((r) => r !== 'console' && sameFile(resolve(out, REPORT_FILES[r]), args.baseline!));
    if (report) throw new UsageError(`--baseline ${args.baseline}: this run writes its ${report} report there; keep the baseline outside --out`);
  }
  const baseline =
    args.baseline && (!args.updateBaseline || existsSync(args.baseline)) ? await readBaseline(args.baseline, args.updateBaseline ?? false) : undefined;
  if (args.update && args.live) throw new UsageError('--update rewrites scenario files from scripted runs; it cannot take a live run (drop --live)');

  const updates: UpdateResult[] = [];
  const peer = await peerLoopOf(args.loop, config);
  if (peer && args.update)
    throw new UsageError(
      args.loop !== undefined
        ? "--update rewrites expectations from loopgate's own loop; it cannot take a run of another loop (drop --loop)"
        : `--update rewrites expectations from loopgate's own loop; the config's loop is ${peer.id}: add --loop loopgate`,
    );
  // Outside probe 50, LOW-5: ignoring the pins of a loop that has none did nothing, silently.
  if (!peer && args.verdicts === false && !args.updateVerdicts)
    throw new UsageError(
      "--no-verdicts ignores a peer loop's pinned verdicts; loopgate's own loop has none: drop it, or add --loop ai-sdk or --loop openai-agents",
    );
  const verdictsFile = peer && (args.verdicts !== false || args.updateVerdicts) ? config.verdicts[peer.id] : undefined;
  const partial = (args.paths !== undefined && args.paths.length > 0) || shard !== undefined || grep !== undefined;
  if (args.updateVerdicts) {
    // Taken together, the pins were re-recorded by a run told to ignore them (outside probe 45, F9).
    if (args.verdicts === false) throw new UsageError('--update-verdicts records the pinned verdicts, --no-verdicts ignores them: give one of the two');
    if (!peer) throw new UsageError("--update-verdicts records a peer loop's verdicts: add --loop ai-sdk or --loop openai-agents");
    if (!verdictsFile)
      throw new UsageError(
        `--update-verdicts: ${config.file} names no verdicts file for ${peer.id}: add verdicts: { '${peer.id}': 'verdicts/${peer.id}.json' }`,
      );
    if (partial) throw new UsageError('--update-verdicts records the whole suite: drop the paths, --grep and --shard');
    // Pinned, a case failed only because --require made its skip a failure would pass every later run that requires it.
    if (requirePatterns.length > 0)
      throw new UsageError("--update-verdicts records what the loop did: drop --require (a required case's skip is not the loop's failure)");
  }
  // The pinned verdicts are an input: read (and refused if bad) before anything runs.
  let pinned: PinnedVerdicts | undefined;
  if (peer && verdictsFile && !args.updateVerdicts) {
    pinned = readVerdictsFile(verdictsFile);
    if (pinned.loop !== peer.id)
      throw new UsageError(`${verdictsFile}: pins the verdicts of ${pinned.loop}, not of ${peer.id} (see verdicts: in ${config.file})`);
  }
  // Pins of other loops only (kept for `--loop ai-sdk`) leave this run unpinned: say so (outside probe 45, F11).
  const pinsOthers = Object.keys(config.verdicts);
  if (peer && !verdictsFile && args.verdicts !== false && pinsOthers.length > 0)
    io.err(
      `note: verdicts: in ${relative(process.cwd(), config.file) || config.file} pins ${pinsOthers.join(', ')}, not ${peer.id}: this run of ${peer.id} is judged unpinned (add '${peer.id}': 'verdicts/${peer.id}.json' to pin it)\n`,
    );
  // The loop is part of a run's identity: another loop's baseline would report its differences as regressions.
  const runLoop = peer?.id ?? 'loopgate';
  if (baseline && (baseline.loop?.name ?? 'loopgate') !== runLoop) {
    const taken = baseline.loop ? '' : ' (written before loopgate recorded the loop: taken as loopgate)';
    throw new UsageError(
      `--baseline ${args.baseline}: a baseline of loop ${baseline.loop?.name ?? 'loopgate'}${taken}; this run gates ${runLoop}: compare runs of one loop (keep a baseline per loop)`,
    );
  }
  const all = peer
    ? await collectPeer(args, config, peer, io)
    : await collect(args, config, hosts, args.update ? { record: (r) => updates.push(r) } : undefined);
  const grepped = selectGrepped(all, args.grep, grep);
  const cases = shard ? selectCases(grepped, { shard }) : grepped;
  // More shards than cases: this one checks nothing (exit 1, which the shipped workflow lets through) but writes its
  // empty results all the same, so merge-reports finds every shard of the run and judges the cases the others checked.
  const emptyShard = cases.length === 0 && shard !== undefined && grepped.length > 0;
  if (emptyShard)
    io.err(
      `loopgate: nothing was checked: shard ${args.shard} is empty: ${grepped.length} case${grepped.length === 1 ? '' : 's'} over ${shard.total} shards${reporters.includes('json') ? ' (its empty results are written for merge-reports)' : ''}\n`,
    );
  if (cases.length === 0 && !emptyShard) {
    // A gate that checked nothing has not passed.
    const where = args.paths && args.paths.length > 0 ? args.paths.join(', ') : `the scenarios of ${config.file}`;
    io.err(
      grep && grepped.length === 0
        ? `loopgate: nothing was checked: --grep ${args.grep} matches none of the ${all.length} case(s)\n`
        : args.live
          ? `loopgate: nothing was checked: no live scenario (one with live:) under ${where}\n`
          : `loopgate: nothing was checked: no scenario files under ${where}\n`,
    );
    // A run that checked nothing has failed: the reports an earlier run left would pass for it (outside probe 22, F5).
    // (A path there that is not a report of loopgate's stays, as a run would refuse it: nothing else to say here.)
    let removed: string[] = [];
    try {
      if (reporters.some((r) => r !== 'console')) removed = removeReports(out, reporters, args.baseline ? [args.baseline] : []);
    } catch {}
    if (removed.length > 0) io.err(`loopgate: the reports an earlier run left in ${out} were removed (${removed.join(', ')}): none of them is this run's\n`);
    return EXIT.failed;
  }

  const required = requiredCases(requirePatterns, grepped);
  const writesFiles = reporters.some((r) => r !== 'console');
  // Reports written in among the scenario files they judge (outside probe 53, LOW-2: exit 0, four files there).
  if (writesFiles) {
    const into = resolve(out);
    const named = args.out !== undefined ? `--out ${out}` : `the config's out (${out})`;
    // Also through a link to that folder (outside probe 64, F7).
    const mixed = cases.find((c) => c.id.startsWith('scenario:') && c.file !== undefined && sameFile(dirname(resolve(c.file)), into));
    if (mixed)
      throw new UsageError(`${named}: holds the scenario files this run checks (${mixed.file}); write the reports elsewhere (the default is reports/)`);
    if (config.scenarios.some((folder) => sameFile(folder, into)))
      throw new UsageError(
        `${named}: is a scenario folder of ${relative(process.cwd(), config.file) || config.file}; write the reports elsewhere (the default is reports/)`,
      );
  }
  if (args.updateBaseline && args.baseline) checkOutputPath(args.baseline, 'baseline', 'file');
  if (writesFiles) checkOutputPath(out, 'report directory', 'directory');
  if (args.updateBaseline && args.baseline) ensureDirectory(dirname(resolve(args.baseline)), 'baseline directory');
  if (writesFiles) ensureDirectory(out, 'report directory');
  // The reports an earlier run left are gone before any case runs: whatever stops this run, none passes for its own.
  if (writesFiles) earlier.remove();

  const startedAt = new Date();
  const backToStart = holdWorkingFolder(io.err);
  const progress = createProgress({ tty: io.tty, write: io.err, total: cases.length, ...(io.columns ? { columns: io.columns } : {}) });
  const ran = await runCases(cases, {
    seed: args.seed,
    // A peer's case swaps the global timers for its clock: one at a time.
    concurrency: peer ? 1 : (args.concurrency ?? Math.max(1, availableParallelism())),
    onStart: (c) => {
      io.activity?.start(`case ${c.id}`);
      progress.start(c.id);
    },
    onResult: (r, _done, _total, c) => {
      // By the id it started under: a result's id is redacted (a case named after part of a secret).
      io.activity?.end(`case ${c.id}`);
      progress.finish(requiredResult(r, c, required), c.id);
    },
  });
  progress.done();
  backToStart();
  const finishedAt = new Date();
  const results = ran.map((r, i) => requiredResult(r, cases[i]!, required));
  // What the run itself checked: a required case it skipped fails the run, but was not checked.
  const checkedNothing = nothingChecked({ summary: summarize(ran) });

  let runResults: RunResults = {
    schema: RESULTS_SCHEMA,
    tool: { name: 'loopgate', version: VERSION },
    loop: { name: peer?.id ?? 'loopgate', version: peer?.version ?? VERSION },
    startedAt: startedAt.toISOString(),
    finishedAt: finishedAt.toISOString(),
    durationMs: finishedAt.getTime() - startedAt.getTime(),
    seed: args.seed,
    ...(shard ? { shard } : {}),
    suite: { config: suiteConfig(config), cases: grepped.length, digest: suiteDigest(grepped.map(reportedId)), ...commitOf() },
    summary: summarize(results),
    cases: results,
  };
  // A partial run cannot tell a missing case from one it did not select.
  if (baseline && !args.updateBaseline)
    runResults = { ...runResults, regressions: compareWithBaseline(runResults, baseline, { reportMissing: inScope ?? true }) };

  if (pinned) {
    const differences = compareVerdicts(pinned, results, !partial);
    // A shard of the whole suite: shard 1 tells the pinned cases the suite no longer selects, once for the merge.
    if (shard?.index === 1 && !(args.paths !== undefined && args.paths.length > 0) && grep === undefined)
      differences.push(...notSelected(pinned, grepped.map(reportedId)));
    runResults = { ...runResults, verdicts: { file: relative(process.cwd(), verdictsFile!) || verdictsFile!, differences } };
  }
  // --update-verdicts: this run becomes the pin, so its reports judge it as the next run will be judged — against what
  // it records, no difference — as its exit code does (review of stop 52: exit 0 while they said FAILED).
  if (args.updateVerdicts && peer && verdictsFile && !nothingChecked(runResults))
    runResults = { ...runResults, verdicts: { file: relative(process.cwd(), verdictsFile) || verdictsFile, differences: [] } };

  backToStart(); // again: a counterexample's replay (fuzz) runs the tools once more
  const written = await writeReports(runResults, {
    reporters,
    outDir: out,
    console: { verbose: args.verbose ?? false, ...(io.columns ? { width: io.columns } : {}) },
  });
  interrupt.stop(); // the reports are this run's, whole
  if (written.console) io.out(written.console);
  for (const path of Object.values(written.files)) io.err(`wrote ${path}\n`);
  if (args.update) io.err(updateReport(updates));
  if (emptyShard) return EXIT.failed; // said above; nothing to record or compare
  if (args.updateBaseline && args.baseline && checkedNothing) {
    // A baseline of no checked case would hide every later regression; its reports say the run failed.
    io.err(`loopgate: nothing was checked: all ${runResults.summary.total} case(s) were skipped; baseline not updated\n`);
    return EXIT.failed;
  }
  if (args.updateBaseline && args.baseline) {
    const { kept } = await writeBaselineFile(args.baseline, runResults, inScope && baseline ? { baseline, inScope } : undefined);
    io.err(
      `baseline updated: ${args.baseline} (${results.length} case${results.length === 1 ? '' : 's'}${kept > 0 ? `; ${kept} not selected by this run kept as they were` : ''})\n`,
    );
  }
  const regressions = runResults.regressions?.length ?? 0;
  if (args.updateVerdicts && peer && verdictsFile) {
    // Verdicts of a run that checked nothing would pin nothing, and its reports say it failed (review of stop 51).
    if (nothingChecked(runResults)) {
      io.err(`loopgate: nothing was checked: all ${runResults.summary.total} case(s) were skipped; no verdicts recorded\n`);
      return EXIT.failed;
    }
    const recorded = verdictsOf(peer.id, peer.version, args.seed, results);
    writeVerdictsFile(verdictsFile, recorded);
    const { passed, failed, skipped } = recorded.summary;
    io.err(`verdicts recorded: ${verdictsFile} (${peer.id} ${peer.version}: ${passed} passed, ${failed} failed, ${skipped} skipped as pinned)\n`);
    return regressions > 0 ? EXIT.failed : EXIT.passed;
  }
  if (pinned && runResults.verdicts) {
    // The peer's documented failures are the expected result: the gate is whether it still fails exactly so.
    const { differences, file } = runResults.verdicts;
    if (pinned.version !== peer!.version && differences.length > 0)
      io.out(`note: the verdicts were pinned on ${pinned.version}; this run is on ${peer!.version}\n`);
    io.out(renderVerdictComparison(file, peer!.id, differences, results.length, 20, runResults.summary.skipped, runResults.summary.failed));
  }
  // The exit code is the reports' verdict, from its one home (a run exit 0 whose reports said FAILED: outside probe 43, F5).
  if (runPassed(runResults)) return EXIT.passed;
  if (nothingChecked(runResults)) io.err(`loopgate: nothing was checked: all ${runResults.summary.total} case(s) were skipped\n`);
  return EXIT.failed;
}

/** What --update did to each file: rewritten (and how), refused (and why); unchanged files are counted. */
export function updateReport(updates: readonly UpdateResult[]): string {
  const sorted = [...updates].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  const updated = sorted.filter((u) => u.kind === 'updated');
  const refused = sorted.filter((u) => u.kind === 'refused');
  // Rewritten or not, a file whose case still fails on what --update leaves alone is neither fixed nor up to date.
  const failing = sorted.filter((u) => u.kind !== 'refused' && (u.stillFailing?.length ?? 0) > 0);
  const unchanged = sorted.filter((u) => u.kind === 'unchanged' && (u.stillFailing?.length ?? 0) === 0).length;
  const lines = [
    `--update: rewrote ${updated.length} scenario file${updated.length === 1 ? '' : 's'}, ${unchanged} already up to date, ${refused.length} not updated${
      failing.length > 0 ? `; ${failing.length} still failing on expectations --update does not rewrite` : ''
    }`,
  ];
  for (const u of updated) for (const change of u.changes) lines.push(`  ✎ ${u.file}: ${change}`);
  for (const u of refused) lines.push(`  ✗ ${u.file}: ${u.reason}`);
  for (const u of failing)
    if (u.kind !== 'refused') lines.push(`  ✗ ${u.file}: still failing on what --update does not rewrite: ${u.stillFailing!.join(', ')}`);
  return `${lines.join('\n')}\n`;
}

/** The config as results.json names it: relative to the working folder, with / (shards run on other machines), or the bundled suite. */
/** The project's commit, when known: shards of one run are made from one commit (merge-reports holds them to it). */
function commitOf(): { commit?: string } {
  const commit = projectCommit(process.cwd());
  return commit ? { commit } : {};
}

function suiteConfig(config: ResolvedConfig): string {
  if (config.bundled) return 'the bundled suite';
  return (relative(process.cwd(), config.file) || config.file).split(sep).join('/');
}
