/**
 * The host's configuration (seed 001 §3.6: config apart from code): one YAML file,
 * validated at startup. Startup validation is one of the two places that fail
 * fast (seed 004): an error names the file, the line and the key.
 */
import { LineCounter, parseDocument, isMap, isNode, isScalar, type Document, type Node } from 'yaml';
import { z } from 'zod';
import { checkPriceTable } from '../report/cost/price-table.ts';
import {
  DEFAULT_LOOP_CONFIG,
  DEFAULT_MAX_OUTPUT_CHARS,
  DEFAULT_RETRY,
  DEFAULT_TIMEOUT_MS,
  InputError,
  MAX_TIMEOUT_MS,
  type LoopConfig,
} from '../kernel/index.ts';
import { storeConfigSchema } from '../stores/store-config.ts';
import { readInputFile } from '../files/index.ts';
import { formatPath, loadYaml, YAML_OPTIONS, YamlValidationError } from '../yaml/load-yaml.ts';
import { YAML_LIMITS } from '../yaml/limits.ts';

const positiveInt = z.number().int().positive();
const nonNegativeInt = z.number().int().nonnegative();
/** A wait the host keeps on a real timer: Node fires one longer than 2^31 - 1 ms after 1 ms (outside probe 18). */
const TIMER_MAX = { error: `must be at most ${MAX_TIMEOUT_MS} ms, about 24.8 days: a timer fires a longer wait at once` };
const timerMs = positiveInt.max(MAX_TIMEOUT_MS, TIMER_MAX);
const delayMs = nonNegativeInt.max(MAX_TIMEOUT_MS, TIMER_MAX);
const providerName = z.enum(['anthropic', 'openai-chat', 'openai-responses', 'fake']);
const envName = z.string().regex(/^[A-Z_][A-Z0-9_]*$/, 'an environment variable name');

/** An HTTP header name (RFC 9110 token). */
const headerName = z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'an HTTP header name');

/**
 * OTLP over HTTP to a collector. Header values (API keys) never sit in the file:
 * each header names the environment variable holding its value.
 */
const otlpSchema = z.strictObject({
  /** The collector's OTLP/HTTP traces URL; a URL without a path gets the standard `/v1/traces`. */
  endpoint: z
    .string()
    .refine((url) => otlpEndpointProblem(url) === undefined, { error: (issue) => otlpEndpointProblem(String(issue.input)) ?? 'invalid endpoint' }),
  /** Header name → the environment variable holding its value, e.g. `{ x-honeycomb-team: HONEYCOMB_API_KEY }`. */
  headers: z
    .record(headerName, envName, {
      error: (issue) => (issue.code === 'invalid_key' ? "not an HTTP header name (letters, digits and !#$%&'*+.^_`|~-)" : undefined),
    })
    .default({}),
  /** The resource's `service.name`. */
  serviceName: z.string().min(1).default('loopgate'),
  /** `gen_ai.agent.name` on every turn span. */
  agentName: z.string().min(1).optional(),
  /** Longest one export request may take (ms). */
  timeoutMs: timerMs.optional(),
});

/** Query parameters that carry a credential (`?key=`, `?api_key=`, `?access_token=`, `?sig=`...). */
const CREDENTIAL_PARAM = /key|token|secret|passw|pwd|auth|credential|^sig$|signature/i;

/** Whether a model's address carries a credential: a user or password, or a query parameter named like a key. */
export function urlHasCredentials(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.username !== '' || parsed.password !== '' || [...parsed.searchParams.keys()].some((name) => CREDENTIAL_PARAM.test(name));
  } catch {
    return /^[a-z][a-z0-9+.-]*:\/\/[^/@]*@/i.test(url);
  }
}

/** A model's address (`model.baseURL`, `model.fallback[i].baseURL`): a URL with no credential in it. */
const modelBaseUrl = z
  .url()
  // Any other scheme passed the check and failed every turn at the first request (outside probe 14, CLI-3).
  .superRefine((url, ctx) => {
    const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase();
    if (scheme !== undefined && scheme !== 'http' && scheme !== 'https')
      ctx.addIssue({ code: 'custom', message: `${scheme}: is not supported: the provider SDKs speak http:// or https:// only` });
  })
  .refine(
    (url) => !urlHasCredentials(url),
    'must not carry credentials (config files get committed and shared): put the API key in an environment variable named by apiKeyEnv',
  );

/** Why `url` cannot be an OTLP endpoint, or undefined. */
export function otlpEndpointProblem(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `${JSON.stringify(url.slice(0, 120))} is not a URL: give the collector's address, e.g. http://localhost:4318/v1/traces`;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    return `${parsed.protocol} is not supported: OTLP over HTTP needs an http:// or https:// URL`;
  // A user or password, or a query parameter named like a key (as a model's address is checked).
  if (urlHasCredentials(url))
    return 'must not carry credentials (config files get committed and shared): send them as a header whose value comes from an environment variable (headers)';
  return undefined;
}

const traceExportSchema = z.preprocess(
  (value) => (value === 'none' ? {} : value),
  z.strictObject(
    {
      /** A JSON-lines file, one trace per line (relative to the config file). */
      jsonl: z.string().min(1).optional(),
      otlp: otlpSchema.optional(),
    },
    { error: (issue) => (issue.code === 'invalid_type' ? 'use none, or an object with jsonl: FILE and/or otlp: { endpoint: URL }' : undefined) },
  ),
);

const layerSchema = z.strictObject({
  allow: z.array(z.string()).optional(),
  deny: z.array(z.string()).optional(),
});

export const hostConfigSchema = z.strictObject({
  model: z
    .strictObject({
      provider: providerName.default('fake'),
      name: z.string().min(1).default(DEFAULT_LOOP_CONFIG.model),
      maxTokens: positiveInt.default(DEFAULT_LOOP_CONFIG.maxTokens),
      temperature: z.number().min(0).max(2).optional(),
      timeoutMs: timerMs.optional(),
      /** The provider's API address (default: the SDK's own, or its *_BASE_URL variable). */
      baseURL: modelBaseUrl.optional(),
      /** Name of the environment variable holding the API key (never the key itself). Default: the provider's usual one. */
      apiKeyEnv: envName.optional(),
      /**
       * Tier 3 of the retry chain: clients tried in order once the retries are spent
       * (overload, rate limits, server errors). Each is asked for its own model `name`.
       */
      fallback: z
        .array(z.strictObject({ provider: providerName, name: z.string().min(1), baseURL: modelBaseUrl.optional(), apiKeyEnv: envName.optional() }))
        .default([]),
    })
    .default({ provider: 'fake', name: DEFAULT_LOOP_CONFIG.model, maxTokens: DEFAULT_LOOP_CONFIG.maxTokens, fallback: [] }),
  budgets: z
    .strictObject({
      maxSteps: positiveInt.default(DEFAULT_LOOP_CONFIG.maxSteps),
      maxToolCallsPerTurn: positiveInt.default(DEFAULT_LOOP_CONFIG.maxToolCallsPerTurn),
      maxToolCallsPerSession: positiveInt.default(DEFAULT_LOOP_CONFIG.maxToolCallsPerSession),
      maxTokensPerTurn: positiveInt.optional(),
      maxTokensPerSession: positiveInt.optional(),
    })
    .default({
      maxSteps: DEFAULT_LOOP_CONFIG.maxSteps,
      maxToolCallsPerTurn: DEFAULT_LOOP_CONFIG.maxToolCallsPerTurn,
      maxToolCallsPerSession: DEFAULT_LOOP_CONFIG.maxToolCallsPerSession,
    }),
  retry: z
    .strictObject({
      immediateRetries: nonNegativeInt.default(DEFAULT_RETRY.immediateRetries),
      immediateDelayMs: delayMs.default(DEFAULT_RETRY.immediateDelayMs),
      backoffRetries: nonNegativeInt.default(DEFAULT_RETRY.backoffRetries),
      backoffBaseMs: delayMs.default(DEFAULT_RETRY.backoffBaseMs),
      backoffMaxMs: delayMs.default(DEFAULT_RETRY.backoffMaxMs),
      jitter: z.number().min(0).max(1).default(DEFAULT_RETRY.jitter),
      maxRetryAfterMs: delayMs.default(DEFAULT_RETRY.maxRetryAfterMs),
    })
    .default(DEFAULT_RETRY),
  tools: z
    .strictObject({
      allow: z.array(z.string()).optional(),
      deny: z.array(z.string()).default([]),
      /** Named modes (e.g. read-only research): a second visibility layer. */
      modes: z.record(z.string(), layerSchema).default({}),
      mode: z.string().optional(),
      /** Tools that need a human's approval before they run. */
      ask: z.array(z.string()).default([]),
      /** What happens to an `ask` when no approver is connected. */
      onAskWithoutApprover: z.enum(['deny', 'allow']).default('deny'),
      maxOutputChars: positiveInt.default(DEFAULT_MAX_OUTPUT_CHARS),
      defaultTimeoutMs: timerMs.default(DEFAULT_TIMEOUT_MS),
      /** The wait before retry n of a NONE or IDEMPOTENT tool: this × 2^(n-1) ms, held to a timer's limit. 0: retries run at once. */
      retryBackoffMs: delayMs.default(0),
    })
    .default({
      deny: [],
      modes: {},
      ask: [],
      onAskWithoutApprover: 'deny',
      maxOutputChars: DEFAULT_MAX_OUTPUT_CHARS,
      defaultTimeoutMs: DEFAULT_TIMEOUT_MS,
      retryBackoffMs: 0,
    }),
  thresholds: z
    .strictObject({
      maxCompactionsPerStep: nonNegativeInt.default(DEFAULT_LOOP_CONFIG.maxCompactionsPerStep),
      maxCheckpointExtensions: nonNegativeInt.default(DEFAULT_LOOP_CONFIG.maxCheckpointExtensions),
      sideEffectNotice: z.boolean().default(true),
    })
    .default({ maxCompactionsPerStep: 2, maxCheckpointExtensions: 3, sideEffectNotice: true }),
  store: storeConfigSchema.default({ kind: 'sqlite', path: '.loopgate/loopgate.db' }),
  /**
   * Snapshots of each conversation's derived state, stored with the events every
   * `every` events (0: never), so a long conversation reopens from its latest
   * snapshot and the events after it (docs/storage.md). Stores without snapshots
   * (PostgreSQL) always read the whole conversation.
   */
  snapshots: z.strictObject({ every: nonNegativeInt.default(10_000) }).default({ every: 10_000 }),
  /**
   * Conversations the host keeps open in memory while nobody is talking to them
   * (a bound on memory): the least recently used beyond `maxIdle`, and any idle
   * for `idleTimeoutMs`, are closed and reopened from the store on the next message.
   */
  sessions: z
    .strictObject({
      maxIdle: nonNegativeInt.default(1_000),
      idleTimeoutMs: timerMs.default(600_000),
    })
    .default({ maxIdle: 1_000, idleTimeoutMs: 600_000 }),
  trace: z
    .strictObject({
      /** dev: lifecycle misuse throws; production: it is recorded. */
      mode: z.enum(['dev', 'production']).default('production'),
      /** Where finished traces go: a JSON-lines file, an OpenTelemetry collector (OTLP/HTTP), both, or nowhere (`none`). */
      export: traceExportSchema.default({}),
    })
    .default({ mode: 'production', export: {} }),
  /**
   * What the models' tokens cost, per million, by model name (as in loopgate.config.ts):
   * `{ currency: USD, models: { claude-sonnet-4-5: { input: 3, output: 15, cachedInput: 0.3 } } }`.
   * Each turn's summary in the response then carries its cost.
   */
  prices: z
    .unknown()
    .transform((value, ctx) => {
      const checked = checkPriceTable(value);
      if ('table' in checked) return checked.table;
      for (const problem of checked.problems) ctx.addIssue({ code: 'custom', path: [...problem.path], message: problem.message });
      return z.NEVER;
    })
    .optional(),
  prompt: z
    .strictObject({
      identity: z.string().default('You are a helpful assistant.'),
      deployment: z.string().optional(),
    })
    .default({ identity: 'You are a helpful assistant.' }),
});

export type HostConfig = z.infer<typeof hostConfigSchema>;

/** A bad config: names the file, line and key. An `InputError`, so the CLI exits 2. */
export class ConfigError extends InputError {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** Where a parsed config came from, to point at a key in errors found after parsing. */
export interface ConfigSource {
  readonly file: string;
  /** `file:line:column` of the value at `path`, or of its nearest existing parent. */
  locate(path: readonly (string | number)[]): string;
  /** Whether the file itself sets the value at `path` (not a default). */
  has(path: readonly (string | number)[]): boolean;
  /** Whether the file sets nothing at all: it is empty, only comments, or a null document. */
  holdsNoSettings(): boolean;
}

const SOURCES = new WeakMap<HostConfig, ConfigSource>();

/** The file a config was parsed from, if it was (a config built in code has none). */
export function configSource(config: HostConfig): ConfigSource | undefined {
  return SOURCES.get(config);
}

/** `file:line:col: path` for an error about the value at `path` (just `path` without a source). */
export function configKey(config: HostConfig, path: readonly (string | number)[]): string {
  const source = SOURCES.get(config);
  const key = formatPath(path);
  return source ? `${source.locate(path)}: ${key}` : `config ${key}`;
}

/** Parses config text. Throws `ConfigError` naming file, line and key. */
export function parseHostConfig(text: string, file: string): HostConfig {
  let config: HostConfig;
  try {
    config = loadYaml(text, hostConfigSchema, file);
  } catch (error) {
    if (error instanceof YamlValidationError) throw new ConfigError(`invalid config:\n${error.message}`);
    throw error;
  }
  SOURCES.set(config, sourceOf(text, file));
  return config;
}

function sourceOf(text: string, file: string): ConfigSource {
  // Parsed again only when an error needs a position (the text already parsed once).
  let parsed: { doc: Document; lineCounter: LineCounter } | undefined;
  const source = () => {
    if (parsed) return parsed;
    const lineCounter = new LineCounter();
    parsed = { doc: parseDocument(text, { ...YAML_OPTIONS, lineCounter }), lineCounter };
    return parsed;
  };
  return {
    file,
    locate(path) {
      const { doc, lineCounter } = source();
      let node: unknown;
      for (let depth = path.length; depth >= 0; depth--) {
        node = depth === 0 ? doc.contents : doc.getIn(path.slice(0, depth), true);
        if (isNode(node)) break;
      }
      const range = isNode(node) ? (node as Node).range : undefined;
      const pos = lineCounter.linePos(range?.[0] ?? 0);
      return `${file}:${pos.line}:${pos.col}`;
    },
    has(path) {
      return source().doc.hasIn(path);
    },
    holdsNoSettings() {
      const contents = source().doc.contents;
      return contents === null || (isScalar(contents) && contents.value === null) || (isMap(contents) && contents.items.length === 0);
    },
  };
}

export function loadHostConfig(path: string): HostConfig {
  let text: string;
  try {
    // Regular files only, bounded, strictly UTF-8 (a FIFO named as the config would block the host's start).
    text = readInputFile(path, { what: 'config file', maxBytes: YAML_LIMITS.bytes });
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
  return parseHostConfig(text, path);
}

/**
 * A config built in code (plain JavaScript has no types to hold it to the shape): checked against the schema and
 * given its defaults, as a file would be. Throws `ConfigError` naming each key that is wrong.
 */
export function checkedHostConfig(config: unknown): HostConfig {
  const result = hostConfigSchema.safeParse(config);
  if (result.success) {
    WRITTEN.set(result.data, config);
    return result.data;
  }
  const problems = result.error.issues.slice(0, 5).map((issue) => `config ${formatPath(issue.path as (string | number)[]) || '(root)'}: ${issue.message}`);
  throw new ConfigError(`invalid config:\n${problems.join('\n')}`);
}

/**
 * A config as given: one already checked (read from a file, or by
 * `checkedHostConfig`) is taken as it is — checking it again would count every
 * default the schema filled in as written by its author, and those defaults
 * would override the agent's own limits (configWrites). Anything else is checked.
 */
export function asCheckedHostConfig(config: HostConfig): HostConfig {
  return SOURCES.has(config) || WRITTEN.has(config) ? config : checkedHostConfig(config);
}

/** The defaults, as if from an empty file. */
export function defaultHostConfig(): HostConfig {
  return checkedHostConfig({});
}

/** The object a config built in code was checked from (before the schema's defaults). */
const WRITTEN = new WeakMap<HostConfig, unknown>();

/**
 * Whether the config's author wrote the key at `path` (in the file, or the
 * object checked by `checkedHostConfig`), rather than the schema filling in its
 * default. A config built in code that never went through the schema is typed
 * whole: every value is its author's.
 */
export function configWrites(config: HostConfig, path: readonly string[]): boolean {
  const source = SOURCES.get(config);
  if (source) return source.has(path);
  if (!WRITTEN.has(config)) return true;
  let node: unknown = WRITTEN.get(config);
  for (const key of path) {
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, key)) return false;
    node = (node as Record<string, unknown>)[key];
  }
  return node !== undefined;
}

/**
 * The loop limits the config sets: only the keys it writes. Where it says
 * nothing, the agent's own limits hold, then the loop's defaults (`loopDeps`
 * merges them): a YAML that never mentions `budgets` must not run an agent
 * built for 6 tool calls a turn with 20. `retry` is merged key by key.
 */
export function loopConfigFrom(config: HostConfig): Partial<LoopConfig> {
  const out: Record<string, unknown> = {};
  const take = (path: readonly string[], key: string, value: unknown) => {
    if (value !== undefined && configWrites(config, path)) out[key] = value;
  };
  take(['model', 'name'], 'model', config.model.name);
  take(['model', 'maxTokens'], 'maxTokens', config.model.maxTokens);
  take(['model', 'temperature'], 'temperature', config.model.temperature);
  take(['model', 'timeoutMs'], 'modelTimeoutMs', config.model.timeoutMs);
  for (const key of ['maxSteps', 'maxToolCallsPerTurn', 'maxToolCallsPerSession', 'maxTokensPerTurn', 'maxTokensPerSession'] as const)
    take(['budgets', key], key, config.budgets[key]);
  for (const key of ['maxCompactionsPerStep', 'maxCheckpointExtensions', 'sideEffectNotice'] as const) take(['thresholds', key], key, config.thresholds[key]);
  const retry: Record<string, unknown> = {};
  for (const key of Object.keys(config.retry) as (keyof HostConfig['retry'])[]) if (configWrites(config, ['retry', key])) retry[key] = config.retry[key];
  if (Object.keys(retry).length > 0) out['retry'] = retry;
  return out as Partial<LoopConfig>;
}
