/**
 * A production host from its YAML alone: the store it names (`store`), the model
 * client and its fallbacks on the official SDKs (`model.provider`, `model.name`,
 * `model.baseURL`, `model.apiKeyEnv`, `model.timeoutMs`, `model.fallback`), where
 * traces go (`trace.export`: a JSON-lines file, an OpenTelemetry collector over
 * OTLP/HTTP with header values from the environment, or both), plus everything
 * `AgentHost` reads itself. What code must supply — the tools, and optionally an
 * approver, hooks, a policy — comes in the options. Every bad key is a
 * `ConfigError` naming the file, line and key, before anything is opened or
 * written.
 *
 * Relative paths in a config file (`store.path`, `trace.export.jsonl`) are
 * relative to the file's folder; in a config given as an object, to the working
 * directory.
 */
import { accessSync, constants, lstatSync, readlinkSync, statSync } from 'node:fs';
import { readBytes, sameFile } from '../files/index.ts';
import { dirname, isAbsolute, resolve } from 'node:path';
import { API_KEY_ENV, createAdapter } from '../../providers/clients.ts';
import {
  type Agent,
  type AgentFactory,
  type Clock,
  createRedactor,
  LOOPGATE_LOOP,
  MIN_SECRET_LENGTH,
  type ModelClient,
  systemClock,
  type TraceExporter,
} from '../kernel/index.ts';
import type { EventStore } from '../stores/event-store.ts';
import { openStore } from '../stores/from-config.ts';
import { asCheckedHostConfig, ConfigError, configKey, configSource, loadHostConfig, type HostConfig } from './config.ts';
import { AgentHost, type HostOptions, type RecoverySweep } from './host.ts';
import { hostAgent, hostToolExecutor } from './host-agent.ts';
import { selectedMode } from './tool-names.ts';
import { OtelTraceExporter } from './otel/otel-exporter.ts';
import { FanOutExporter, JsonlFileExporter } from './trace-export.ts';

/** One model client as the config names it: the primary (`model`) or a fallback (`model.fallback[i]`). */
export interface ModelSpec {
  readonly provider: HostConfig['model']['provider'];
  readonly name: string;
  readonly baseURL?: string;
  /** The API key, read from the environment variable the config names (absent for `fake`). */
  readonly apiKey?: string;
  readonly timeoutMs?: number;
  /** Where it sits in the config, e.g. `model` or `model.fallback[0]`. */
  readonly key: string;
}

export interface HostFromConfigOptions extends Omit<HostOptions, 'config' | 'store' | 'model' | 'fallbackModels' | 'exporter' | 'agent'> {
  /**
   * The agent the host serves: the factory from your loopgate.config.ts — built
   * once here, with no conversation, to check it against the config before
   * anything is opened, then once per conversation the host opens (HostOptions.agent)
   * — or an `Agent`, shared by every conversation.
   */
  readonly agent?: Agent | AgentFactory;
  /** A store instead of the one `store` names (tests, the harness). */
  readonly store?: EventStore;
  /** Where API keys and the store's URL variable are read. Default: `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /**
   * Builds the client for one config entry. Default: the shipped adapters on the
   * official SDKs. Needed for `provider: fake` (there is no fake to build from
   * YAML alone), and a seam for the harness.
   */
  readonly modelClient?: (spec: ModelSpec) => ModelClient;
  /** The fetch the SDKs use (a proxy; the default is the global fetch). */
  readonly fetch?: typeof globalThis.fetch;
  /** An exporter instead of the one `trace.export` names. */
  readonly exporter?: TraceExporter;
  /** Run the recovery sweep (`recoverAll`) before returning. Default true. */
  readonly recover?: boolean;
  /** Told what the sweep found. */
  readonly onRecovered?: (sweep: RecoverySweep) => void;
}

/**
 * Everything `createHostFromConfig` checks in a config before it opens anything —
 * its keys, and every tool it names (tools.deny/ask/allow, modes) against the
 * agent's — without opening a store, building a client or reading a key
 * (`loopgate check-host`, a CI step before a deploy). Returns the parsed config.
 */
export function checkHostConfig(
  config: string | HostConfig,
  options: Pick<HostOptions, 'tools' | 'policyRules'> & { readonly agent?: Agent } = {},
): HostConfig {
  const parsed = typeof config === 'string' ? loadHostConfig(config) : asCheckedHostConfig(config);
  refuseEmptyFile(parsed);
  // Once the file parsed, each part is checked on its own: every problem is named in one run, each on its line.
  const problems: ConfigError[] = [];
  const check = (part: () => void) => {
    try {
      part();
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      problems.push(error);
    }
  };
  check(() => checkToolPipeline(parsed, options));
  check(() => selectedMode(parsed));
  // A file that names no provider would serve the scripted fake: a deploy needs it said (provider: fake) or a real one.
  check(() => {
    if (configSource(parsed)?.has(['model', 'provider']) === false)
      throw new ConfigError(
        `${configKey(parsed, ['model', 'provider'])}: not set: the host would serve loopgate's scripted fake model; name the provider (anthropic, openai-chat or openai-responses), or write provider: fake if your code passes its own modelClient`,
      );
    modelSpecs(parsed, {}, { adapters: false });
  });
  check(() => checkTraceFile(parsed, pathsOf(parsed)));
  check(() => checkStoreFile(parsed, pathsOf(parsed)));
  // The pipeline's build reads the selected mode too: a problem two parts find is told once.
  const lines = [...new Set(problems.map((p) => p.message.replace(/^invalid config:\n/, '')))];
  if (lines.length === 1) throw problems.find((p) => p.message.replace(/^invalid config:\n/, '') === lines[0])!;
  if (lines.length > 1) throw new ConfigError(`invalid config:\n${lines.join('\n')}`);
  return parsed;
}

/**
 * A file that holds no settings (empty, or only comments) is a config error, not
 * the defaults: it is the wrong file, or one not written yet — served, it would
 * open a default store beside it. (An empty file would be told only the first key
 * it lacks: say what it is.)
 */
function refuseEmptyFile(config: HostConfig): void {
  const source = configSource(config);
  if (source?.holdsNoSettings())
    throw new ConfigError(
      `${source.file}:1:1: the file holds no settings (it is empty, or only comments): a host config names at least its model (model: { provider: anthropic, name: … }), and usually its store and tools`,
    );
}

/** Resolves a config's relative paths: against its file's folder, or the working directory for a config given as an object. */
function pathsOf(config: HostConfig): (path: string) => string {
  const source = configSource(config);
  const base = source ? dirname(resolve(source.file)) : process.cwd();
  return (path: string) => (isAbsolute(path) ? path : resolve(base, path));
}

/** `trace.export.jsonl` names a file the host can create or append to: a `ConfigError` naming file, line and key if not. Creates nothing. */
function checkTraceFile(config: HostConfig, at: (path: string) => string): void {
  const jsonl = config.trace.export.jsonl;
  if (jsonl === undefined) return;
  const key = configKey(config, ['trace', 'export', 'jsonl']);
  const path = at(jsonl);
  // A stream is a place to append lines to (/dev/stdout in a container): only the store must be a regular file.
  const problem = writableFileProblem(path, { stream: true });
  if (problem) throw new ConfigError(`${key}: cannot write ${path}: ${problem}`);
  // Outside probe 29, F4: traces appended to the store's own file were overwritten by SQLite's page writes, and
  // appended to a file of the user's (a scenario, a config) damaged it.
  if (config.store.kind === 'sqlite' && sameFile(path, at(config.store.path))) {
    const where = configSource(config)?.locate(['store', 'path']);
    throw new ConfigError(
      `${key}: ${path} is the file store.path names${where ? ` (${where})` : ''}: the traces and the SQLite store cannot share one file; give the traces a file of their own`,
    );
  }
  const lines = jsonLinesProblem(path);
  if (lines) throw new ConfigError(`${key}: ${path} ${lines}: the host appends one JSON line per turn there; name a new file, or a trace file the host wrote`);
}

/**
 * A SQLite `store.path` names a file the host can create or open for writing (the
 * store creates missing folders): a `ConfigError` naming file, line and key if it
 * is a folder or sits under a file. Opens and creates nothing.
 */
function checkStoreFile(config: HostConfig, at: (path: string) => string): void {
  if (config.store.kind !== 'sqlite') return;
  const path = at(config.store.path);
  const problem = writableFileProblem(path);
  if (problem) throw new ConfigError(`${configKey(config, ['store', 'path'])}: cannot write ${path}: ${problem}`);
  if (!startsAsSqlite(path))
    throw new ConfigError(
      `${configKey(config, ['store', 'path'])}: ${path} is not a SQLite database (its first bytes are not SQLite's header): name a new file, or the store's own`,
    );
}

const SQLITE_HEADER = 'SQLite format 3\0';

/** Whether the file at `path` may be opened as a SQLite database: missing, empty, or beginning with SQLite's header. */
function startsAsSqlite(path: string): boolean {
  const head = readBytes(path, 0, SQLITE_HEADER.length);
  return head === undefined || head.length === 0 || head.toString('latin1') === SQLITE_HEADER;
}

/**
 * Why an existing file is not one the host may append JSON lines to (its first
 * line is not a JSON object), or undefined: missing, empty, or JSON lines. Only
 * the first 1 MiB is read; a first line longer than that counts if it begins as
 * an object does.
 */
function jsonLinesProblem(path: string): string | undefined {
  const head = readBytes(path, 0, 1 << 20);
  if (head === undefined) return undefined;
  const text = head.toString('utf8');
  if (text.trim() === '') return undefined;
  const end = text.indexOf('\n');
  const first = (end < 0 ? text : text.slice(0, end)).trim();
  if (end < 0 && head.length === 1 << 20) return first.startsWith('{') ? undefined : 'does not hold JSON lines (it does not begin with a JSON object)';
  try {
    const value: unknown = JSON.parse(first);
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) return undefined;
  } catch {
    // not JSON
  }
  return 'does not hold JSON lines (its first line is not a JSON object)';
}

function lstatOrNone(path: string) {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

/** Why a file could not be created or appended to at `path` (its missing folders created first), or undefined. */
function writableFileProblem(path: string, options: { readonly stream?: boolean } = {}): string | undefined {
  const kind = (p: string): 'file' | 'folder' | 'other' | undefined => {
    try {
      const stat = statSync(p);
      return stat.isDirectory() ? 'folder' : stat.isFile() ? 'file' : 'other';
    } catch {
      return undefined;
    }
  };
  const writable = (p: string): boolean => {
    try {
      accessSync(p, constants.W_OK);
      return true;
    } catch {
      return false;
    }
  };
  // A link whose target does not exist (stat fails, the link is there): writing through it creates the target if
  // the target's folder exists (a store linked onto a volume before its first write); else nothing can be created.
  const dangling = (p: string): string | undefined => {
    if (!lstatOrNone(p)?.isSymbolicLink()) return undefined;
    const target = readlinkSync(p);
    return kind(dirname(resolve(dirname(p), target))) === 'folder' ? undefined : `${p} is a link to ${target}, which does not exist`;
  };
  const own = kind(path);
  if (own === 'folder') return 'it is a folder, not a file';
  if (own === 'file') return writable(path) ? undefined : 'the file is not writable';
  // A device, a FIFO, a socket: a store fails on it (outside probe 64, F4); a trace file may be a stream (/dev/stdout).
  if (own === 'other') return options.stream ? undefined : 'it is not a regular file (a device, a FIFO or a socket)';
  const broken = dangling(path);
  if (broken) return broken;
  // The nearest folder that exists: the exporter creates the ones below it.
  let parent = dirname(path);
  while (kind(parent) === undefined && dirname(parent) !== parent) {
    if (lstatOrNone(parent)?.isSymbolicLink()) return `${parent} is a link to ${readlinkSync(parent)}, which does not exist`;
    parent = dirname(parent);
  }
  const found = kind(parent);
  if (found === 'folder') return writable(parent) ? undefined : `the folder ${parent} is not writable`;
  return found === undefined ? `${parent} does not exist` : `${parent} is a file, not a folder`;
}

/** Builds the host a config describes; `config` is a path to a YAML file or a parsed config. */
export async function createHostFromConfig(config: string | HostConfig, options: HostFromConfigOptions = {}): Promise<AgentHost> {
  const parsed = typeof config === 'string' ? loadHostConfig(config) : asCheckedHostConfig(config);
  refuseEmptyFile(parsed);
  const at = pathsOf(parsed);
  const env = options.env ?? process.env;
  // A factory is built here only to be checked, as the host will run it (what it refuses in loopgate's loop is said
  // now, before anything is opened); the host builds it per conversation.
  const agent =
    typeof options.agent === 'function'
      ? await options.agent({ clock: options.clock ?? systemClock, random: options.random ?? Math.random, loop: LOOPGATE_LOOP })
      : options.agent;

  // Everything that can be wrong with the config is found before anything is opened.
  checkToolPipeline(parsed, { ...options, agent });
  selectedMode(parsed);
  const specs = modelSpecs(parsed, env, { adapters: options.modelClient === undefined });
  if (!options.exporter) checkTraceFile(parsed, at);
  if (!options.store) checkStoreFile(parsed, at);
  const clock = options.clock;
  const build = options.modelClient ?? ((spec: ModelSpec) => configAdapter(spec, options.fetch, clock));
  const [primary, ...fallbacks] = specs.map((spec) => withModel(build(spec), spec.name));
  const headers = otlpHeaders(parsed, env);
  const {
    store: givenStore,
    env: _env,
    modelClient: _modelClient,
    fetch: _fetch,
    exporter: givenExporter,
    recover,
    onRecovered,
    agent: _agent,
    ...rest
  } = options;
  // The keys and the collector's header values are secrets whatever their variables are called.
  // The checked build's secrets too: the host redacts them from its first request on, before it builds an agent of its own.
  const built = typeof options.agent === 'function' ? (agent?.secrets ?? []) : [];
  const secrets = [...(options.secrets ?? []), ...built, ...specs.flatMap((s) => (s.apiKey ? [s.apiKey] : [])), ...Object.values(headers)];
  const exporter = givenExporter ?? traceExporter(parsed, { at, headers, secrets });
  const stopExporter = () => (givenExporter ? Promise.resolve() : Promise.resolve(exporter?.shutdown?.()).catch(() => undefined));
  let store: EventStore;
  try {
    store = givenStore ?? (await openStore(parsed.store.kind === 'sqlite' ? { ...parsed.store, path: at(parsed.store.path) } : parsed.store, { env }));
  } catch (error) {
    await stopExporter();
    throw error;
  }
  let host: AgentHost;
  try {
    host = new AgentHost({
      ...rest,
      env,
      ...(options.agent ? { agent: options.agent } : {}),
      config: parsed,
      store,
      model: primary!,
      ...(fallbacks.length ? { fallbackModels: fallbacks } : {}),
      ...(exporter ? { exporter } : {}),
      secrets,
    });
  } catch (error) {
    if (!givenStore) await store.close().catch(() => undefined);
    await stopExporter();
    throw error;
  }
  if (recover ?? true) {
    try {
      const sweep = await host.recoverAll();
      onRecovered?.(sweep);
    } catch (error) {
      await host.close().catch(() => undefined);
      throw error;
    }
  }
  return host;
}

/** The exporter `trace.export` names: none, a JSON-lines file, an OTLP collector, or both. */
function traceExporter(
  config: HostConfig,
  context: { at: (path: string) => string; headers: Readonly<Record<string, string>>; secrets: readonly string[] },
): TraceExporter | undefined {
  const { jsonl, otlp } = config.trace.export;
  const exporters: TraceExporter[] = [];
  if (jsonl !== undefined) {
    try {
      exporters.push(new JsonlFileExporter(context.at(jsonl)));
    } catch (error) {
      // Checked before (checkTraceFile); this is what changed since, or what no check can see.
      throw new ConfigError(`${configKey(config, ['trace', 'export', 'jsonl'])}: cannot write ${context.at(jsonl)}: ${(error as Error).message}`);
    }
  }
  if (otlp !== undefined) {
    exporters.push(
      new OtelTraceExporter({
        endpoint: tracesUrl(otlp.endpoint),
        headers: context.headers,
        serviceName: otlp.serviceName,
        ...(otlp.agentName !== undefined ? { agentName: otlp.agentName } : {}),
        ...(otlp.timeoutMs !== undefined ? { timeoutMs: otlp.timeoutMs } : {}),
        secrets: context.secrets,
      }),
    );
  }
  return exporters.length === 0 ? undefined : exporters.length === 1 ? exporters[0] : new FanOutExporter(exporters);
}

/** An endpoint without a path gets OTLP's standard traces path. */
function tracesUrl(endpoint: string): string {
  const url = new URL(endpoint);
  if (url.pathname === '/' || url.pathname === '') url.pathname = '/v1/traces';
  return url.toString();
}

const characters = (value: string): string => `${value.length} character${value.length === 1 ? '' : 's'}`;

/** The OTLP headers' values, read from the variables the config names. Throws one `ConfigError` listing every variable not set. */
function otlpHeaders(config: HostConfig, env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const headers: Record<string, string> = {};
  const problems: string[] = [];
  for (const [name, variable] of Object.entries(config.trace.export.otlp?.headers ?? {})) {
    const value = env[variable]?.trim();
    if (value && /[^\t\x20-\x7e\x80-\xff]/.test(value))
      problems.push(
        `${configKey(config, ['trace', 'export', 'otlp', 'headers', name])}: the environment variable ${variable} holds a value that cannot be sent as a header (a line break or control character)`,
      );
    else if (value && value.length < MIN_SECRET_LENGTH)
      problems.push(
        `${configKey(config, ['trace', 'export', 'otlp', 'headers', name])}: the environment variable ${variable} holds ${characters(value)}: a header value is redacted from everything the host writes, and one shorter than ${MIN_SECRET_LENGTH} characters cannot be`,
      );
    else if (value) headers[name] = value;
    else
      problems.push(
        `${configKey(config, ['trace', 'export', 'otlp', 'headers', name])}: the environment variable ${variable} is not set (it should hold the value of the ${name} header)`,
      );
  }
  if (problems.length) throw new ConfigError(`invalid config:\n${problems.join('\n')}`);
  return headers;
}

/**
 * The primary's spec and each fallback's, keys read from the environment. With
 * `adapters` (the shipped SDK clients are to be built), a missing key or a `fake`
 * provider is an error. Throws one `ConfigError` listing every problem.
 */
export function modelSpecs(config: HostConfig, env: Readonly<Record<string, string | undefined>>, options: { adapters: boolean }): ModelSpec[] {
  const problems: string[] = [];
  const entries = [
    { entry: config.model, path: ['model'] as (string | number)[] },
    ...config.model.fallback.map((entry, i) => ({ entry, path: ['model', 'fallback', i] as (string | number)[] })),
  ];
  const specs = entries.map(({ entry, path }): ModelSpec => {
    const key = path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('');
    const common = {
      provider: entry.provider,
      name: entry.name,
      ...(entry.baseURL !== undefined ? { baseURL: entry.baseURL } : {}),
      ...(config.model.timeoutMs !== undefined ? { timeoutMs: config.model.timeoutMs } : {}),
      key,
    };
    if (entry.provider === 'fake') {
      if (options.adapters) {
        problems.push(
          `${configKey(config, [...path, 'provider'])}: provider "fake" cannot be built from the config alone: name a real provider (anthropic, openai-chat, openai-responses), or pass modelClient to build it`,
        );
      }
      return common;
    }
    const variable = entry.apiKeyEnv ?? API_KEY_ENV[entry.provider];
    const apiKey = env[variable]?.trim();
    const where = configKey(config, entry.apiKeyEnv !== undefined ? [...path, 'apiKeyEnv'] : [...path, 'provider']);
    if (!apiKey && options.adapters)
      problems.push(`${where}: the environment variable ${variable} is not set (it should hold the ${entry.provider} API key for ${key})`);
    // A key is one of the host's secrets: one too short to redact would refuse every conversation it opens (naming a
    // `secrets[N]` the team never declared), after a start that looked healthy.
    if (apiKey && apiKey.length < MIN_SECRET_LENGTH)
      problems.push(
        `${where}: the environment variable ${variable} holds ${characters(apiKey)}: a key is redacted from everything the host writes, and one shorter than ${MIN_SECRET_LENGTH} characters cannot be (a gateway that takes any key: give it a placeholder of ${MIN_SECRET_LENGTH} or more, e.g. "none")`,
      );
    return { ...common, ...(apiKey ? { apiKey } : {}) };
  });
  if (problems.length) throw new ConfigError(`invalid config:\n${problems.join('\n')}`);
  return specs;
}

/** The shipped SDK adapter for one config entry (what `createHostFromConfig` builds without a `modelClient`). */
export function configAdapter(spec: ModelSpec, fetch?: typeof globalThis.fetch, clock?: Pick<Clock, 'now'> & Partial<Pick<Clock, 'setTimer'>>): ModelClient {
  if (spec.provider === 'fake' || spec.apiKey === undefined) throw new Error(`${spec.key}: no adapter for provider ${spec.provider} without a key`); // modelSpecs refused it already
  return createAdapter(spec.provider, {
    apiKey: spec.apiKey,
    model: spec.name,
    ...(spec.baseURL !== undefined ? { baseURL: spec.baseURL } : {}),
    ...(spec.timeoutMs !== undefined ? { defaultTimeoutMs: spec.timeoutMs } : {}),
    ...(fetch ? { fetch } : {}),
    // A retry-after HTTP date counts from the host's clock, and a call's deadline runs on it (a test host's is virtual).
    ...(clock ? { now: () => clock.now() } : {}),
    ...(clock?.setTimer ? { setTimer: (ms: number, fire: () => void) => clock.setTimer!(ms, fire) } : {}),
  });
}

/**
 * The client as the config names it: declaring the config entry's model
 * (ModelClient.model), which the loop then asks it for — a fallback is never asked
 * for the primary's model (field failure: "the fallback model is asked for the
 * primary's model name"). The shipped adapters already declare it; a client built
 * by `modelClient` that declares none (or another) is given the config's.
 */
export function withModel(client: ModelClient, model: string): ModelClient {
  if (client.model === model) return client;
  return { name: client.name, model, call: (request, onDelta) => client.call(request, onDelta) };
}

/**
 * The tool pipeline the host will build, built once and thrown away: the
 * config's tool lists (a ConfigError naming file, line and key), then the
 * agent's own tools, rules and layers (the kernel refuses a broken declaration
 * or a name that names no tool) — all before anything is opened.
 */
function checkToolPipeline(config: HostConfig, options: Pick<HostOptions, 'tools' | 'policyRules'> & { readonly agent?: Agent | undefined }): void {
  hostToolExecutor(config, hostAgent(options), createRedactor(), options.policyRules);
}
