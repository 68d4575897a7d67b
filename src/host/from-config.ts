/**
 * A production host from its YAML alone: the store it names (`store`), the model
 * client and its fallbacks on the official SDKs (`model.provider`, `model.name`,
 * `model.baseURL`, `model.apiKeyEnv`, `model.timeoutMs`, `model.fallback`), where
 * traces go (`trace.export`), plus everything `AgentHost` reads itself. What code
 * must supply — the tools, and optionally an approver, hooks, a policy — comes in
 * the options. Every bad key is a `ConfigError` naming the file, line and key,
 * before anything is opened or written.
 *
 * Relative paths in a config file (`store.path`, `trace.export.jsonl`) are
 * relative to the file's folder; in a config given as an object, to the working
 * directory.
 */
import { dirname, isAbsolute, resolve } from 'node:path';
import { API_KEY_ENV, createAdapter } from '../../providers/clients.ts';
import { type ModelClient, ToolRegistry, type TraceExporter } from '../kernel/index.ts';
import type { EventStore } from '../stores/event-store.ts';
import { openStore } from '../stores/from-config.ts';
import { ConfigError, configKey, configSource, loadHostConfig, type HostConfig } from './config.ts';
import { AgentHost, type HostOptions, type RecoverySweep } from './host.ts';
import { checkConfiguredToolNames, selectedMode } from './tool-names.ts';
import { JsonlFileExporter } from './trace-export.ts';

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

export interface HostFromConfigOptions extends Omit<HostOptions, 'config' | 'store' | 'model' | 'fallbackModels' | 'exporter'> {
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

/** Builds the host a config describes; `config` is a path to a YAML file or a parsed config. */
export async function createHostFromConfig(config: string | HostConfig, options: HostFromConfigOptions = {}): Promise<AgentHost> {
  const parsed = typeof config === 'string' ? loadHostConfig(config) : config;
  const source = configSource(parsed);
  const base = source ? dirname(resolve(source.file)) : process.cwd();
  const at = (path: string) => (isAbsolute(path) ? path : resolve(base, path));
  const env = options.env ?? process.env;

  // Everything that can be wrong with the config is found before anything is opened.
  checkConfiguredToolNames(parsed, new ToolRegistry(options.tools ?? []).names());
  selectedMode(parsed);
  const specs = modelSpecs(parsed, env, { adapters: options.modelClient === undefined });
  const build = options.modelClient ?? ((spec: ModelSpec) => adapterFor(spec, options.fetch));
  const [primary, ...fallbacks] = specs.map((spec) => withModel(build(spec), spec.name));
  const { store: givenStore, env: _env, modelClient: _modelClient, fetch: _fetch, exporter: givenExporter, recover, onRecovered, ...rest } = options;
  const exporter = givenExporter ?? (parsed.trace.export === 'none' ? undefined : new JsonlFileExporter(at(parsed.trace.export.jsonl)));
  const store = givenStore ?? (await openStore(parsed.store.kind === 'sqlite' ? { ...parsed.store, path: at(parsed.store.path) } : parsed.store, { env }));
  let host: AgentHost;
  try {
    host = new AgentHost({
      ...rest,
      config: parsed,
      store,
      model: primary!,
      ...(fallbacks.length ? { fallbackModels: fallbacks } : {}),
      ...(exporter ? { exporter } : {}),
      // The keys are secrets whatever their variables are called.
      secrets: [...(options.secrets ?? []), ...specs.flatMap((s) => (s.apiKey ? [s.apiKey] : []))],
    });
  } catch (error) {
    if (!givenStore) await store.close().catch(() => undefined);
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
    if (!apiKey && options.adapters) {
      const where = configKey(config, entry.apiKeyEnv !== undefined ? [...path, 'apiKeyEnv'] : [...path, 'provider']);
      problems.push(`${where}: the environment variable ${variable} is not set (it should hold the ${entry.provider} API key for ${key})`);
    }
    return { ...common, ...(apiKey ? { apiKey } : {}) };
  });
  if (problems.length) throw new ConfigError(`invalid config:\n${problems.join('\n')}`);
  return specs;
}

function adapterFor(spec: ModelSpec, fetch: typeof globalThis.fetch | undefined): ModelClient {
  if (spec.provider === 'fake' || spec.apiKey === undefined) throw new Error(`${spec.key}: no adapter for provider ${spec.provider} without a key`); // modelSpecs refused it already
  return createAdapter(spec.provider, {
    apiKey: spec.apiKey,
    model: spec.name,
    ...(spec.baseURL !== undefined ? { baseURL: spec.baseURL } : {}),
    ...(spec.timeoutMs !== undefined ? { defaultTimeoutMs: spec.timeoutMs } : {}),
    ...(fetch ? { fetch } : {}),
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
