/**
 * What the kernel refuses in an agent beyond its tools, policy rules, visibility
 * layers and prompt fragments (each checked where it is built): its loop limits
 * (`config`), its hooks and its secrets. Checked once, when an agent is built
 * into a loop or a host, so a mistyped limit or an unset secret is one line
 * naming the setting — never a limit silently ignored, a hook that throws on its
 * first turn, or a secret too short to redact that is left in every record.
 */
import type { Agent } from './agent.ts';
import { closestName } from './closest-name.ts';
import type { RetryConfig } from './loop/config.ts';
import { MAX_SECRETS, MIN_SECRET_LENGTH } from './redact/secret-forms.ts';
import { MAX_TIMEOUT_MS, TIMEOUT_TOO_LONG } from './timer-wheel.ts';
import { loopVocabulary } from './vocabulary.ts';

export class AgentSettingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AgentSettingError';
  }
}

type Check = (value: unknown) => string | undefined;

const wholeFrom =
  (min: number): Check =>
  (v) =>
    typeof v === 'number' && Number.isSafeInteger(v) && v >= min ? undefined : `must be a whole number of at least ${min}`;
const msFrom0: Check = (v) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? undefined : 'must be a number of milliseconds, 0 or more');
const msAbove0: Check = (v) => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? undefined : 'must be a positive number of milliseconds');
const between =
  (min: number, max: number): Check =>
  (v) =>
    typeof v === 'number' && Number.isFinite(v) && v >= min && v <= max ? undefined : `must be a number from ${min} to ${max}`;
const timeoutMs: Check = (v) => msAbove0(v) ?? ((v as number) > MAX_TIMEOUT_MS ? TIMEOUT_TOO_LONG : undefined);
/** A wait the production clock keeps (a retry's delay, the longest retry-after waited): 0 up to what a timer can wait. */
const delayMs: Check = (v) => msFrom0(v) ?? ((v as number) > MAX_TIMEOUT_MS ? TIMEOUT_TOO_LONG : undefined);
const boolean: Check = (v) => (typeof v === 'boolean' ? undefined : 'must be true or false');

/** The loop limits an agent may set, and what each must be. */
const CONFIG_CHECKS: Readonly<Record<string, Check>> = {
  maxTokens: wholeFrom(1),
  temperature: between(0, 2),
  maxSteps: wholeFrom(1),
  maxToolCallsPerTurn: wholeFrom(0),
  maxToolCallsPerSession: wholeFrom(0),
  maxTokensPerTurn: wholeFrom(1),
  maxTokensPerSession: wholeFrom(1),
  modelTimeoutMs: timeoutMs,
  maxCompactionsPerStep: wholeFrom(0),
  maxCheckpointExtensions: wholeFrom(0),
  sideEffectNotice: boolean,
};

const RETRY_CHECKS: Readonly<Record<keyof RetryConfig, Check>> = {
  immediateRetries: wholeFrom(0),
  immediateDelayMs: delayMs,
  backoffRetries: wholeFrom(0),
  backoffBaseMs: delayMs,
  backoffMaxMs: delayMs,
  jitter: between(0, 1),
  maxRetryAfterMs: delayMs,
};

/** Hooks: what each must hold (a name to show in traces and records, and the function the loop calls). */
const HOOKS: readonly { readonly key: 'checkpoints' | 'errorHandlers'; readonly method: string }[] = [
  { key: 'checkpoints', method: 'run' },
  { key: 'errorHandlers', method: 'handle' },
];
const OBJECTS: readonly { readonly key: 'compactor' | 'claim' | 'approver'; readonly method: string }[] = [
  { key: 'compactor', method: 'compact' },
  { key: 'claim', method: 'claim' },
  { key: 'approver', method: 'approve' },
];

/** Every key an agent has (the `Agent` type): any other is a typo that would be silently ignored. */
const AGENT_KEYS: readonly (keyof Agent)[] = [
  'tools',
  'system',
  'prompt',
  'policy',
  'visibility',
  'approver',
  'compactor',
  'checkpoints',
  'claim',
  'errorHandlers',
  'config',
  'secrets',
];

/**
 * Another framework's agent object (an @openai/agents `Agent`: instructions and handoffs) given as the agent: one
 * line saying what loopgate takes instead — not a line per field and tool it does not know.
 */
export function foreignAgentProblem(agent: unknown): string | undefined {
  if (!isRecord(agent) || agent.instructions === undefined || !Array.isArray(agent.handoffs)) return undefined;
  return "an @openai/agents Agent is not a loopgate agent: gate it as it ships with openAiAgent((model) => new Agent({ model, … })) from loopgate/loops/openai-agents — its .agent here, its .loop as the config's loop";
}

/** Every problem of the agent's settings, one line each (empty when none). */
export function agentSettingProblems(agent: Agent): string[] {
  const problems: string[] = [];
  const a = agent as Record<string, unknown>;
  const foreign = foreignAgentProblem(agent);
  if (foreign) return [foreign];
  // A misspelled key (polcy) would drop what it holds without a word: its approval rules, its secrets.
  for (const key of Object.keys(a)) {
    if (a[key] === undefined || (AGENT_KEYS as readonly string[]).includes(key)) continue;
    const near = closestName(key, AGENT_KEYS);
    problems.push(`${key} is not an agent setting${near ? `; did you mean "${near}"?` : ` (the settings: ${AGENT_KEYS.join(', ')})`}`);
  }
  const config = a.config;
  if (config !== undefined) {
    if (!isRecord(config)) problems.push(`config must be an object of loop limits (got ${describe(config)})`);
    else {
      for (const [key, value] of Object.entries(config)) {
        if (value === undefined) continue;
        if (key === 'retry') {
          if (!isRecord(value)) problems.push(`config.retry must be an object (got ${describe(value)})`);
          else problems.push(...settings(`config.retry`, value, RETRY_CHECKS));
          continue;
        }
        problems.push(...settings('config', { [key]: value }, CONFIG_CHECKS, ['retry']));
      }
    }
  }
  for (const { key, method } of HOOKS) {
    const list = a[key];
    if (list === undefined) continue;
    if (!Array.isArray(list)) {
      problems.push(`${key} must be a list (got ${describe(list)})`);
      continue;
    }
    list.forEach((hook: unknown, i) => {
      if (!isRecord(hook) || typeof hook.name !== 'string' || hook.name === '' || typeof hook[method] !== 'function')
        problems.push(`${key}[${i}] must be an object with a name and a ${method} function (got ${describe(hook)})`);
    });
  }
  for (const { key, method } of OBJECTS) {
    const value = a[key];
    if (value !== undefined && (!isRecord(value) || typeof value[method] !== 'function'))
      problems.push(`${key} must be an object with a ${method} function (got ${describe(value)})`);
  }
  const secrets = a.secrets;
  if (secrets !== undefined) {
    // A string given alone is most likely the secret itself (`secrets: process.env.KEY`): its length only, never its text.
    if (!Array.isArray(secrets))
      problems.push(
        `secrets must be a list of strings (got ${typeof secrets === 'string' ? `a string of ${secrets.length} characters, not shown: it may be the secret itself` : describe(secrets)})`,
      );
    else if (new Set(secrets).size > MAX_SECRETS)
      problems.push(
        `secrets lists ${new Set(secrets).size} secrets; at most ${MAX_SECRETS}: each is looked for, in every form, in every text the loop writes — list the credentials this agent can reach`,
      );
    else
      secrets.forEach((secret: unknown, i) => {
        if (typeof secret !== 'string') problems.push(`secrets[${i}] must be a string (got ${describe(secret)})`);
        else if (secret.length < MIN_SECRET_LENGTH)
          problems.push(
            `secrets[${i}] is ${secret.length === 0 ? 'empty' : `${secret.length} character${secret.length === 1 ? '' : 's'} long`}: a secret must be at least ${MIN_SECRET_LENGTH} characters to be redacted (is the environment variable it comes from set?)`,
          );
        else {
          const garbles = secretGarbles(secret, toolNames(a.tools));
          if (garbles) problems.push(`secrets[${i}] (${secret.length} characters) occurs in ${garbles}; a secret must be the credential itself`);
        }
      });
  }
  return problems;
}

/**
 * What a secret would garble, were every occurrence redacted: a word the loop
 * writes into its records, or a tool's name (never the secret itself: the line
 * gives neither it nor the word it is in).
 */
export function secretGarbles(secret: string, tools: readonly string[]): string | undefined {
  if (loopVocabulary().some((word) => word.includes(secret)))
    return 'a word the loop writes into its records (a field name, status or event type): redacting it would garble every record';
  const name = tools.find((t) => t.includes(secret));
  return name === undefined ? undefined : `the name of the tool ${JSON.stringify(name)}: redacting it would garble every call of it`;
}

/**
 * What a redactor of the caller's would garble: the first word the loop writes
 * into its records, or tool name, that it changes. A redactor is a function, so
 * it is asked word by word (once per redactor for the loop's words).
 */
export function redactorGarbles(redact: (text: string) => string, tools: readonly string[]): string | undefined {
  let word = checkedRedactors.get(redact);
  if (word === undefined) {
    word = loopVocabulary().find((w) => redact(w) !== w) ?? '';
    checkedRedactors.set(redact, word);
  }
  if (word !== '')
    return `redact changes ${JSON.stringify(word)}, a word the loop writes into its records (a field name, status or event type): it would garble every record; redact credentials only`;
  const name = tools.find((t) => redact(t) !== t);
  return name === undefined
    ? undefined
    : `redact changes the name of the tool ${JSON.stringify(name)}: it would garble every call of it; redact credentials only`;
}

/** Redactors already asked about the loop's words: the first word each changes, or ''. */
const checkedRedactors = new WeakMap<(text: string) => string, string>();

function toolNames(tools: unknown): string[] {
  if (!Array.isArray(tools)) return [];
  return tools.flatMap((tool) => (isRecord(tool) && typeof tool.name === 'string' ? [tool.name] : []));
}

/** Throws an AgentSettingError naming the first problem of the agent's settings. */
export function checkAgentSettings(agent: Agent): void {
  const [first] = agentSettingProblems(agent);
  if (first !== undefined) throw new AgentSettingError(first);
}

/** Settings a team may put in an agent's config that belong somewhere else: where they go. */
const SETTINGS_ELSEWHERE: Readonly<Record<string, string>> = {
  toolMaxOutputChars:
    "the cap on a tool's output is the operator's, tools.maxOutputChars in the host's YAML (a scenario's config.toolMaxOutputChars sets it for that scenario)",
  toolRetryBackoffMs:
    "the wait before a tool's retry is the operator's, tools.retryBackoffMs in the host's YAML (a scenario's config.toolRetryBackoffMs sets it for that scenario)",
};

/** `sections`: the settings checked on their own (`retry`), named with the rest when a key is unknown. */
function settings(where: string, values: Record<string, unknown>, checks: Readonly<Record<string, Check>>, sections: readonly string[] = []): string[] {
  const out: string[] = [];
  for (const [key, value] of Object.entries(values)) {
    if (value === undefined) continue;
    const check = checks[key];
    if (!check) {
      const names = [...Object.keys(checks), ...sections];
      const elsewhere = Object.hasOwn(SETTINGS_ELSEWHERE, key) ? SETTINGS_ELSEWHERE[key] : undefined;
      const near = closestName(key, names);
      out.push(
        `${where}.${key} is not a loop setting${elsewhere ? `: ${elsewhere}` : near ? `; did you mean "${near}"?` : ` (the settings: ${names.join(', ')})`}`,
      );
      continue;
    }
    const why = check(value);
    if (why) out.push(`${where}.${key} ${why} (got ${describe(value)})`);
  }
  return out;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null || value === undefined) return String(value);
  if (typeof value === 'function') return 'a function';
  return Array.isArray(value) ? 'a list' : 'an object';
}
