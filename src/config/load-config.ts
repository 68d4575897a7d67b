/**
 * Finding and loading the config: `--config FILE`, else the first
 * `loopgate.config.{ts,mts,js,mjs}` from the working directory upward, else the
 * bundled suite's own config (the example agent and its scenarios). Every problem
 * is a ConfigFileError naming the file and the key — and nothing runs. Each agent
 * is built once as the config loads and checked the way every host builds it
 * (inspect-agents.ts).
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { decodeUtf8, errnoText, sameFile } from '../files/index.ts';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type fc from 'fast-check';
import { closestName, foreignAgentProblem, type AgentFactory } from '../kernel/index.ts';
import { INVARIANTS, invariantListProblem, type Invariant } from '../harness/invariants/index.ts';
import type { AgentRegistry } from '../harness/second-host.ts';
import type { HostMode } from '../harness/scenario/schema.ts';
import { DEFAULT_HOSTS } from '../harness/suite-context.ts';
import type { ReplyAssertionContext } from '../harness/checks/reply-assertion-types.ts';
import { checkReplyConfig } from './reply-config.ts';
import { checkPriceTable, type PriceTable } from '../report/cost/price-table.ts';
import { capabilitiesProblem } from '../harness/loop-port/capabilities.ts';
import { FRAMEWORK_LOOP_IDS, LOOPGATE_ADAPTER, type LoopUnderTestFactory } from '../harness/loop-port/peer-world.ts';
import { commonjsImportOf, commonjsMessage, commonjsPackageOf } from './commonjs-package.ts';
import { ConfigFileError } from './config-error.ts';
import { CONFIG_KEYS, FUZZ_KEYS, type LoopgateConfig } from './define-config.ts';
import type { ContractHarness } from '../../providers/contract-suite/harness.ts';
import { importUserModule, LoadTimeout } from './import-module.ts';
import { LOAD_LIMIT_ENV, loadLimitMs, showLimit } from '../harness/world/load-limit.ts';
import { inspectConfigAgents } from './inspect-agents.ts';
import { lineOfKey } from './locate-key.ts';
import { PACKAGE_ROOT } from '../package-root.ts';
import { syntaxLocation } from './syntax-location.ts';

export const CONFIG_NAMES = ['loopgate.config.ts', 'loopgate.config.mts', 'loopgate.config.js', 'loopgate.config.mjs'] as const;

/** The bundled suite's config: the example agent and its scenarios (the package's own). */
export const BUNDLED_CONFIG = bundledConfigFile();

export interface ResolvedConfig {
  /** The config file read. */
  readonly file: string;
  /** Its folder: scenario ids and paths are relative to it. */
  readonly root: string;
  /** This is the bundled suite's config (no config file of the user's was found). */
  readonly bundled: boolean;
  readonly registry: AgentRegistry;
  /** Scenario files and folders, absolute. */
  readonly scenarios: readonly string[];
  readonly invariants: readonly Invariant[];
  readonly reporters: readonly string[] | undefined;
  /** Absolute, when set. */
  readonly out: string | undefined;
  readonly baseline: string | undefined;
  /** The hosts scenarios run through (`host`), when the config says. */
  readonly hosts: readonly HostMode[] | undefined;
  /** The price table, when the config has one. */
  readonly prices: PriceTable | undefined;
  /** Predicates and judges for reply assertions. */
  readonly replies: ReplyAssertionContext;
  /** The loop the agents run in (`loop`), when the config says: a name, or an adapter configured in the file. */
  readonly loop: string | LoopUnderTestFactory | undefined;
  /** Pinned verdicts files of peer loops (`verdicts`), absolute, by loop name. */
  readonly verdicts: Readonly<Record<string, string>>;
  readonly fuzz: { readonly agent: string | undefined; readonly args: Readonly<Record<string, fc.Arbitrary<unknown>>> };
}

/**
 * What case ids are relative to: the config's folder — also for bundled
 * scenarios given by path, so `run scenarios/bundled/x.yaml` has the id a full
 * run gives it, from any working directory. Other paths given without a config
 * of the user's are relative to the working directory.
 */
export function caseIdRoot(config: ResolvedConfig, paths: readonly string[] | undefined): string {
  if (!config.bundled || paths === undefined) return config.root;
  // The bundled suite's files, where the config was read from (dist/ when the build runs) or in the sources.
  const roots = [config.root, join(PACKAGE_ROOT, 'scenarios', 'bundled')];
  const inside = (root: string) => (p: string) => {
    const rel = relative(root, resolve(p));
    return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
  };
  return roots.find((root) => paths.every(inside(root))) ?? process.cwd();
}

/** Where reports go when neither `--out` nor the config's `out` says: `reports/` beside the user's config, else in the working directory. */
export function defaultReportDir(config: ResolvedConfig): string {
  return config.bundled ? 'reports' : join(config.root, 'reports');
}

/** The first config file from `cwd` upward, or undefined. */
export function findConfigFile(cwd: string): string | undefined {
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    for (const name of CONFIG_NAMES) {
      const file = join(dir, name);
      if (existsSync(file)) return file;
    }
    if (dirname(dir) === dir) return undefined;
  }
}

export interface LoadConfigOptions {
  /** `--config`: this file, relative to `cwd`. */
  readonly path?: string | undefined;
  readonly cwd?: string;
  /**
   * The config is loaded to check a production host (`check-host`), which writes no reports: an agent's secret that is
   * a word of the gate's reports is the gate's refusal only, and a host serves it.
   */
  readonly forHost?: boolean;
}

export async function loadConfig(options: LoadConfigOptions = {}): Promise<ResolvedConfig> {
  const cwd = options.cwd ?? process.cwd();
  let file: string;
  if (options.path !== undefined) {
    file = resolve(cwd, options.path);
    let stat;
    try {
      stat = statSync(file);
    } catch (error) {
      // Missing, or a link loop, a part that is no directory, no permission: what it is, not always "missing".
      const code = (error as NodeJS.ErrnoException).code;
      throw new ConfigFileError(`--config ${options.path}: ${code === 'ENOENT' ? 'no such file' : errnoText(error)}`);
    }
    if (!stat.isFile()) throw new ConfigFileError(`--config ${options.path}: not a file`);
    if (!/\.[cm]?[jt]s$/.test(file)) {
      const yaml = /\.ya?ml$/.test(file) ? "; a production host's YAML config is checked with `loopgate check-host`" : '';
      throw new ConfigFileError(
        `--config ${options.path}: a config is a JavaScript or TypeScript module (.ts, .mts, .js or .mjs) whose default export is defineConfig({ … })${yaml}`,
      );
    }
  } else {
    file = findConfigFile(cwd) ?? BUNDLED_CONFIG;
  }
  // Node reads a module's bad bytes as U+FFFD: a config not in UTF-8 would load with its texts changed, or fail as
  // "Unexpected character '�'". Named here with the byte, as every other input file is (outside probe 35, F6).
  const invalidAt = invalidUtf8At(file);
  if (invalidAt !== undefined) throw new ConfigFileError(`${file}: is not valid UTF-8: invalid byte sequence at byte offset ${invalidAt}`);
  let module: Record<string, unknown>;
  const limitMs = loadLimitMs();
  try {
    module = await importUserModule(
      file,
      () => {
        // Nothing left to run and the module still loading: exit 2 naming it (not Node's exit 13).
        process.stderr.write(`loopgate: ${file}: never finished loading: a top-level await that never settles\n`);
        process.exitCode = 2;
      },
      limitMs,
    );
  } catch (error) {
    if (error instanceof LoadTimeout)
      throw new ConfigFileError(
        `${file}: did not finish loading within ${showLimit(limitMs)}: a top-level await waits on a timer, socket or promise that does not settle (${LOAD_LIMIT_ENV} sets the limit)`,
      );
    // A syntax error names its place: in the config itself, or in the file it imports.
    const at = syntaxLocation(error, file);
    // ES module syntax in a "type": "commonjs" project: the project's package.json is what to change.
    const imported = commonjsImportOf(error, at?.file);
    const target = imported?.file ?? at?.file ?? file;
    const pkg = imported?.pkg ?? commonjsPackageOf(error, target);
    if (pkg) {
      const which = sameFile(target, file) ? '' : `${target}: `;
      throw new ConfigFileError(`${file}: could not be loaded: ${which}${commonjsMessage(target, pkg)}`, { cause: error });
    }
    // `loopgate/loops/ai-sdk` (or openai-agents) imported without the peer's package: the install line `--loop` gives.
    const peer = missingPeerPackage(error);
    if (peer)
      throw new ConfigFileError(
        `${file}: could not be loaded: ${peer.module} needs ${peer.package}, which is not installed — it is an optional peer dependency of loopgate; npm install --save-dev ${peer.package}`,
        { cause: error },
      );
    const where = at ? `${at.file}:${at.line}:${at.column}` : undefined;
    if (at && sameFile(at.file, file)) throw new ConfigFileError(`${where}: could not be loaded: ${firstLine(error)}`, { cause: error });
    // A throw while the config's top level ran (a loop adapter refusing its options): the config's line that threw.
    const line = at ? undefined : frameIn(error, file);
    if (line) throw new ConfigFileError(`${file}:${line}: could not be loaded: ${firstLine(error)}`, { cause: error });
    throw new ConfigFileError(`${file}: could not be loaded: ${where ? `${where}: ` : ''}${firstLine(error)}`, { cause: error });
  }
  return inspectConfigAgents(resolveConfig(module['default'], file, file === BUNDLED_CONFIG), { reports: options.forHost !== true });
}

/**
 * Checks a config object (the module's default export) and resolves its paths.
 * A getter or a Proxy in it that throws when read is the config's error, told in
 * one line naming the key where it can be (outside probe 29, F1: it was reported
 * as loopgate's own internal error, with a stack).
 */
export function resolveConfig(value: unknown, file: string, bundled = false): ResolvedConfig {
  try {
    return resolveConfigRead(value, file, bundled);
  } catch (error) {
    if (error instanceof ConfigFileError) throw error;
    throw new ConfigFileError(`${file}: reading the config threw: ${firstLine(error)} (a getter or a Proxy in what it exports)`, { cause: error });
  }
}

/** The top-level keys of a config object read once, each read that throws named by its key. */
function readKeys(config: object, file: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(config)) {
    try {
      out[key] = (config as Record<string, unknown>)[key];
    } catch (error) {
      throw new ConfigFileError(`${file}: ${key}: reading it threw: ${firstLine(error)}`, { cause: error });
    }
  }
  return out;
}

function resolveConfigRead(value: unknown, file: string, bundled: boolean): ResolvedConfig {
  let source: string | undefined;
  const fail = (key: string, message: string, path: readonly string[] = key ? key.split('.') : []): never => {
    source ??= readSource(file);
    const line = path.length > 0 ? lineOfKey(source, path) : undefined;
    throw new ConfigFileError(`${file}${line !== undefined ? `:${line}` : ''}: ${key ? `${key}: ` : ''}${message}`);
  };
  if (value === undefined) fail('', 'has no default export; export default defineConfig({ agents: { … } })');
  if (isThenable(value)) {
    // Reported here, so not also as a stray rejection of the code under test.
    Promise.resolve(value).catch(() => undefined);
    fail(
      '',
      'the default export is a promise: loopgate does not await it; export the config itself, awaiting what it needs at the top level (export default defineConfig({ agents: { … }, … }) after `const key = await …`)',
    );
  }
  // Only a plain object: a Map, a class instance or a module namespace has no config keys of its own to read.
  if (value === null || typeof value !== 'object' || Array.isArray(value) || !isPlainObject(value))
    fail('', `the default export must be a config object (defineConfig({ … })), got ${describe(value)}`);
  const config = readKeys(value as object, file) as LoopgateConfig & Record<string, unknown>;
  for (const key of Object.keys(config)) {
    if (!(CONFIG_KEYS as readonly string[]).includes(key)) {
      const near = closestName(key, CONFIG_KEYS);
      fail(key, `unknown key${near ? ` (did you mean ${near}?)` : ''}; known: ${CONFIG_KEYS.join(', ')}`);
    }
  }
  const root = dirname(file);

  const agents = new Map<string, AgentFactory>();
  if (config.agents !== undefined) {
    if (config.agents === null || typeof config.agents !== 'object' || Array.isArray(config.agents))
      fail('agents', `expected an object of agent factories by name, got ${describe(config.agents)}`);
    for (const [name, factory] of Object.entries(config.agents)) {
      if (!/^[A-Za-z0-9_-]{1,64}$/.test(name)) fail(`agents.${name}`, 'an agent name is letters, digits, _ or - (at most 64)');
      if (name === 'none') fail('agents.none', '`none` is reserved: the agent with only the scenario’s own tools');
      if (typeof factory !== 'function')
        fail(`agents.${name}`, foreignAgentProblem(factory) ?? `expected a factory, () => ({ tools, system, … }), got ${describe(factory)}`);
      agents.set(name, factory);
    }
  }
  const clients = new Map<string, ContractHarness>();
  if (config.clients !== undefined) {
    if (config.clients === null || typeof config.clients !== 'object' || Array.isArray(config.clients))
      fail('clients', `expected an object of contract harnesses by name ({ acme: acmeHarness() }), got ${describe(config.clients)}`);
    for (const [name, harness] of Object.entries(config.clients)) {
      if (!/^[A-Za-z0-9_-]{1,64}$/.test(name)) fail(`clients.${name}`, 'a client name is letters, digits, _ or - (at most 64)');
      const h = harness as Partial<ContractHarness> | null;
      if (h === null || typeof h !== 'object' || typeof h.clientFor !== 'function')
        fail(
          `clients.${name}`,
          `expected a contract harness ({ name, clientFor({ caseId, behaviour }), start?, stop? }: docs/own-provider.md), got ${describe(harness)}`,
        );
      for (const hook of ['start', 'stop'] as const)
        if (h?.[hook] !== undefined && typeof h?.[hook] !== 'function') fail(`clients.${name}.${hook}`, `expected a function, got ${describe(h?.[hook])}`);
      clients.set(name, harness);
    }
  }
  const names = [...agents.keys()];
  let defaultAgent = config.defaultAgent;
  if (defaultAgent !== undefined) {
    if (typeof defaultAgent !== 'string') fail('defaultAgent', `expected an agent name, got ${describe(defaultAgent)}`);
    if (defaultAgent !== 'none' && !agents.has(defaultAgent)) {
      const near = closestName(defaultAgent, names);
      fail('defaultAgent', `no agent ${JSON.stringify(defaultAgent)}${near ? ` (did you mean ${near}?)` : ''}; defined: ${names.join(', ') || 'none'}`);
    }
  } else if (names.length === 1) defaultAgent = names[0]!;

  const scenarios = strings(config.scenarios ?? 'scenarios', 'scenarios', fail).map((p) => (isAbsolute(p) ? p : resolve(root, p)));
  const reporters = config.reporters === undefined ? undefined : strings(config.reporters, 'reporters', fail);
  const path = (key: 'out' | 'baseline') => {
    const v = config[key];
    if (v === undefined) return undefined;
    if (typeof v !== 'string' || v === '') fail(key, `expected a path, got ${describe(v)}`);
    return resolve(root, v as string);
  };
  const invariants = config.invariants ?? [];
  if (!Array.isArray(invariants)) fail('invariants', `expected a list of invariants (defineInvariant({ … })), got ${describe(invariants)}`);
  invariants.forEach((inv: unknown, i: number) => {
    const x = inv as Partial<Invariant> | null;
    if (x === null || typeof x !== 'object' || typeof x.id !== 'string' || typeof x.check !== 'function') {
      fail(`invariants[${i}]`, 'expected an invariant: defineInvariant({ id, title, check(run) })');
    }
  });
  // Checked beside loopgate's own: a report names each check by its id, so two with one id could not be told apart.
  const clash = invariantListProblem([...INVARIANTS, ...invariants.filter((i: Invariant) => !INVARIANTS.includes(i))]);
  if (clash !== undefined) fail('invariants', clash.replace(/^invariants: /, ''));

  let hosts: readonly HostMode[] | undefined;
  if (config.host !== undefined) {
    const host: unknown = config.host;
    if (host === 'both') hosts = DEFAULT_HOSTS;
    else if (host === 'loop' || host === 'production') hosts = [host];
    else fail('host', `expected loop, production or both, got ${describe(host)}`);
  }

  let prices: PriceTable | undefined;
  if (config.prices !== undefined) {
    const checked = checkPriceTable(config.prices);
    if ('problems' in checked) {
      const first = checked.problems[0]!;
      const path = ['prices', ...first.path];
      fail(path.join('.'), first.message, path);
    } else prices = checked.table;
  }

  const replies = checkReplyConfig(config, fail);

  const loop: unknown = config.loop;
  if (loop !== undefined) {
    const isFactory =
      loop !== null &&
      typeof loop === 'object' &&
      typeof (loop as LoopUnderTestFactory).create === 'function' &&
      typeof (loop as LoopUnderTestFactory).id === 'string';
    // An object meant as a loop of a team's own is told which of its parts is missing (outside probe 54: "got an
    // object" named neither `create` nor that a hand-written loop may go here).
    const missing =
      loop !== null && typeof loop === 'object' && !Array.isArray(loop)
        ? (['id', 'create'] as const).filter((k) => typeof (loop as Record<string, unknown>)[k] !== (k === 'id' ? 'string' : 'function'))
        : [];
    if (typeof loop !== 'string' && !isFactory && missing.length > 0 && missing.length < 2)
      fail(
        `loop.${missing[0]}`,
        missing[0] === 'create'
          ? `a loop of your own needs create(world), which builds its adapter per case (runTurn, persistedHistory, traces); got ${describe((loop as Record<string, unknown>).create)}`
          : `a loop of your own needs an id (a name of its own, for reports and verdicts); got ${describe((loop as Record<string, unknown>).id)}`,
        ['loop'],
      );
    if (typeof loop !== 'string' && !isFactory)
      fail(
        'loop',
        `expected loopgate, ai-sdk, openai-agents, an adapter (aiSdkLoop({ … })) or a loop of your own ({ id, version, capabilities, create }), got ${describe(loop)}`,
      );
    if (typeof loop === 'string' && !['loopgate', 'ai-sdk', 'openai-agents'].includes(loop))
      fail('loop', `unknown loop ${JSON.stringify(loop)}; known: loopgate, ai-sdk, openai-agents`);
    // Reports, baselines and merged shards tell loops apart by this id: a loop of a team's own that took loopgate's
    // would read as loopgate's own loop everywhere (outside probe 37, F8).
    if (isFactory && (loop as LoopUnderTestFactory).id === 'loopgate')
      fail('loop.id', `"loopgate" names loopgate's own loop; give your loop an id of its own`, ['loop']);
    if (isFactory && FRAMEWORK_LOOP_IDS.includes((loop as LoopUnderTestFactory).id) && !(LOOPGATE_ADAPTER in loop))
      fail(
        'loop.id',
        `${JSON.stringify((loop as LoopUnderTestFactory).id)} names loopgate's adapter of that framework; give your loop an id of its own (a copy of loopgate's adapter that lost its mark — Object.fromEntries, or an adapter of another copy of loopgate than this command's — reads as a loop of your own)`,
        ['loop'],
      );
    if (isFactory && (loop as LoopUnderTestFactory).id.trim() === '')
      fail('loop.id', 'expected a non-empty name (reports, verdicts and baselines name the loop by it)', ['loop']);
    // What the loop says it can do decides which cases run: a misspelled one turns them into skips unsaid, and one the
    // port cannot deliver runs them with the part dropped (outside probe 45, F3, F4, F7).
    const problem = isFactory ? capabilitiesProblem((loop as LoopUnderTestFactory).capabilities, closestName) : undefined;
    if (problem) fail(`loop.capabilities${problem[0] ? `.${problem[0]}` : ''}`, problem[1], ['loop']);
    // An adapter's history glue is a name it acts on: one it does not know would run another glue under its name.
    const glue: unknown = isFactory ? (loop as LoopUnderTestFactory).glue : undefined;
    const glues = isFactory ? (loop as LoopUnderTestFactory).glues : undefined;
    if (glue !== undefined && glues !== undefined && !glues.includes(glue as string))
      fail('loop.glue', `${typeof glue === 'string' ? JSON.stringify(glue) : describe(glue)} is not a glue; known: ${glues.join(', ')}`, ['loop']);
  }

  const verdicts: Record<string, string> = {};
  const pinned: unknown = config.verdicts;
  if (pinned !== undefined) {
    if (pinned === null || typeof pinned !== 'object' || Array.isArray(pinned))
      fail('verdicts', `expected { 'ai-sdk': 'verdicts/ai-sdk.json' } (a file per loop), got ${describe(pinned)}`);
    // The peers loopgate brings, and the config's own loop by its id (a team's loop pins what it does as they do).
    const own = loop !== null && typeof loop === 'object' ? (loop as LoopUnderTestFactory).id : undefined;
    const peers = [...new Set(['ai-sdk', 'openai-agents', ...(own !== undefined ? [own] : [])])];
    for (const [name, file] of Object.entries(pinned as Record<string, unknown>)) {
      if (!peers.includes(name)) fail(`verdicts.${name}`, `not a peer loop; known: ${peers.join(', ')}`);
      if (typeof file !== 'string' || file === '') fail(`verdicts.${name}`, `expected a path, got ${describe(file)}`);
      verdicts[name] = resolve(root, file as string);
    }
  }

  const fuzz = config.fuzz ?? {};
  if (fuzz === null || typeof fuzz !== 'object') fail('fuzz', `expected { agent, args }, got ${describe(fuzz)}`);
  for (const key of Object.keys(fuzz)) if (!(FUZZ_KEYS as readonly string[]).includes(key)) fail(`fuzz.${key}`, `unknown key; known: ${FUZZ_KEYS.join(', ')}`);
  if (fuzz.agent !== undefined && fuzz.agent !== 'none' && !agents.has(fuzz.agent))
    fail('fuzz.agent', `no agent ${JSON.stringify(fuzz.agent)}; defined: ${names.join(', ') || 'none'}`);
  const args = fuzz.args ?? {};
  for (const [tool, arb] of Object.entries(args)) {
    if (arb === null || typeof arb !== 'object' || typeof (arb as { generate?: unknown }).generate !== 'function')
      fail(`fuzz.args.${tool}`, 'expected a fast-check arbitrary (fc.record({ … }), fc.constant(…))');
  }

  return {
    file,
    root,
    bundled,
    registry: { agents, ...(defaultAgent !== undefined ? { defaultAgent } : {}), ...(clients.size > 0 ? { clients } : {}) },
    scenarios,
    invariants,
    reporters,
    out: path('out'),
    baseline: path('baseline'),
    hosts,
    prices,
    replies,
    loop: loop as ResolvedConfig['loop'],
    verdicts,
    fuzz: { agent: fuzz.agent, args },
  };
}

function readSource(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return ''; // the line is a courtesy
  }
}

function strings(value: unknown, key: string, fail: (key: string, message: string) => never): string[] {
  const list = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(list) || list.some((v) => typeof v !== 'string' || v === ''))
    return fail(key, `expected a path or a list of paths, got ${describe(value)}`);
  return list as string[];
}

function isThenable(value: unknown): boolean {
  return (typeof value === 'object' || typeof value === 'function') && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value) as object | null;
  return proto === null || proto === Object.prototype;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'object') {
    const name = (Object.getPrototypeOf(value) as { constructor?: { name?: unknown } } | null)?.constructor?.name;
    return isPlainObject(value) || typeof name !== 'string' || name === '' ? 'an object' : `a ${name}`;
  }
  return JSON.stringify(value) ?? String(value);
}

function firstLine(error: unknown): string {
  // A loop adapter's refusal (`openAiAgent: …`, a TypeError) is told in its own words, without the class's name.
  const own = error instanceof TypeError && ADAPTER_REFUSAL.test(error.message);
  const message = error instanceof Error ? `${error.name === 'Error' || own ? '' : `${error.name}: `}${error.message}` : String(error);
  return message.split('\n')[0]!;
}

/** How loopgate's own config helpers begin a refusal. */
const ADAPTER_REFUSAL = /^(openAiAgent|openAiAgentsLoop|toolLoopAgent|aiSdkAgent|aiSdkLoop|defineConfig|defineTool): /;

/** `line:column` of the innermost frame of `error`'s stack in `file` (the config's top level), if it has one. */
function frameIn(error: unknown, file: string): string | undefined {
  const stack = (error as Error | undefined)?.stack;
  if (typeof stack !== 'string') return undefined;
  const url = pathToFileURL(resolve(file)).href;
  for (const frame of stack.split('\n').slice(1)) {
    const at = frame.lastIndexOf(url);
    const plain = at < 0 ? frame.lastIndexOf(resolve(file)) : -1;
    const start = at >= 0 ? at + url.length : plain >= 0 ? plain + resolve(file).length : -1;
    if (start < 0) continue;
    const place = /^:(\d+):(\d+)/.exec(frame.slice(start));
    if (place) return `${place[1]}:${place[2]}`;
  }
  return undefined;
}

/** The bundled config beside the bundled scenarios: TypeScript in this repository, JavaScript in the built package. */
function bundledConfigFile(): string {
  const dir = resolve(import.meta.dirname, '../../scenarios/bundled');
  const ts = join(dir, 'loopgate.config.ts');
  return existsSync(ts) ? ts : join(dir, 'loopgate.config.js');
}

/** The loop adapters' optional peer packages, by the entry a config imports. */
const PEER_PACKAGES: readonly (readonly [entry: string, pkg: RegExp])[] = [
  ['loopgate/loops/ai-sdk', /^(ai|@ai-sdk\/[^/]+)$/],
  ['loopgate/loops/openai-agents', /^(@openai\/agents(-[a-z]+)?|openai)$/],
];

/** A loop adapter of loopgate's that could not load its peer package: which entry, which package. */
export function missingPeerPackage(error: unknown): { readonly module: string; readonly package: string } | undefined {
  if ((error as { code?: unknown } | null)?.code !== 'ERR_MODULE_NOT_FOUND') return undefined;
  const found = /Cannot find package '([^']+)' imported from (\S+)/.exec(String((error as Error).message));
  if (!found) return undefined;
  const [, pkg, from] = found as unknown as [string, string, string];
  const at = from.replace(/\\/g, '/');
  for (const [entry, packages] of PEER_PACKAGES) {
    const folder = `/src/loops/${entry.split('/').pop()}/`;
    if (packages.test(pkg) && at.includes(folder)) return { module: entry, package: pkg };
  }
  return undefined;
}

/** The byte offset of the first bytes that are not UTF-8 in `file`, or undefined (also when it cannot be read: the import says why). */
function invalidUtf8At(file: string): number | undefined {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch {
    return undefined;
  }
  const decoded = decodeUtf8(bytes);
  return 'invalidAt' in decoded ? decoded.invalidAt : undefined;
}
