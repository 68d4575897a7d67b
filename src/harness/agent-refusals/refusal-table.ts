/**
 * The agent refusal table: agents a user could write that the kernel must refuse
 * before anything runs, each with the one line it must be refused with (what is
 * wrong and where, with the name meant when one is near). A control row is an
 * agent that must be accepted, so a kernel that refuses everything fails too.
 *
 * Rows are data: an edit of a small, valid agent (`BASE_AGENT`), and the exact
 * line expected. refusal-cases.ts runs each row through every path that builds
 * an agent (what `loopgate run` checks first, the loop's own build, the
 * production host's build) and checks that each refuses it with that line and
 * runs none of its tools.
 */
import { z } from 'zod';
import { z as z3 } from 'zod/v3';
import * as zodCore from 'zod/v4/core';
import type { Agent, AnyToolDeclaration, PromptFragment, ToolPolicy, VisibilityLayer } from '../../kernel/index.ts';

/** How many times any tool of any agent built from the table has run: always 0. */
export const toolRuns = { count: 0 };

const tool = (name: string, sideEffect: AnyToolDeclaration['sideEffect'], extra: Partial<AnyToolDeclaration> = {}): AnyToolDeclaration =>
  ({
    name,
    description: `The ${name.replace('_', ' ')} tool.`,
    input: z.object({ order: z.string() }),
    sideEffect,
    run: () => {
      toolRuns.count++;
      return { ok: true };
    },
    ...extra,
  }) as AnyToolDeclaration;

/** Three tools, one of each common level, a policy rule, a visibility layer and a prompt fragment: accepted as it is. */
export function baseAgent(): Agent {
  return {
    system: 'You help customers with their orders.',
    tools: [tool('lookup_order', 'NONE'), tool('send_receipt', 'IDEMPOTENT', { maxRetries: 2 }), tool('issue_refund', 'STATEFUL')],
    policy: { rules: [{ id: 'refunds-need-approval', tools: ['issue_refund'], decision: 'ask' }] },
    visibility: [{ name: 'global', deny: ['send_receipt'] }],
    prompt: [{ id: 'tone', priority: 50, text: 'Be brief.' }],
  };
}

export interface RefusalRow {
  /** The case id's last part. */
  readonly id: string;
  readonly title: string;
  readonly agent: () => Agent;
  /** The line the agent is refused with; undefined: the agent is accepted. */
  readonly refused?: string;
  /**
   * Every line the check lists, for an agent with more than one problem (a
   * config check lists them all, the refused line first); absent: the refused
   * line alone.
   */
  readonly listed?: readonly string[];
}

type Edit = (a: Agent & { tools: AnyToolDeclaration[] }) => Agent;
const edit = (change: Edit) => (): Agent => change(baseAgent() as Agent & { tools: AnyToolDeclaration[] });
const withTool = (extra: AnyToolDeclaration) => edit((a) => ({ ...a, tools: [...a.tools, extra] }));
const withPolicy = (policy: ToolPolicy) => edit((a) => ({ ...a, policy }));
const withLayers = (visibility: VisibilityLayer[]) => edit((a) => ({ ...a, visibility }));
const withFragment = (fragment: PromptFragment) => edit((a) => ({ ...a, prompt: [...(a.prompt ?? []), fragment] }));
const odd = <T>(value: unknown): T => value as T;

export const REFUSAL_TABLE: readonly RefusalRow[] = [
  { id: 'accepted/base-agent', title: 'the base agent is accepted', agent: baseAgent },
  // An agent that only talks declares no tools at all: nothing to check, nothing listed.
  {
    id: 'accepted/no-tools',
    title: 'an agent with no tools (no tools key at all) is accepted',
    agent: () => ({ system: 'You answer questions about our shipping times.' }),
  },
  {
    id: 'accepted/pattern-and-priorities',
    title: 'a pattern that matches a tool, and fragments at any finite priority, are accepted',
    agent: edit((a) => ({
      ...a,
      visibility: [{ name: 'global', allow: ['lookup_*', 'issue_*'] }],
      prompt: [
        { id: 'late', priority: 1e9, text: () => 'Sign off politely.' },
        { id: 'early', priority: -3.5, text: 'Answer in English.', exclusive: false },
      ],
    })),
  },
  {
    id: 'accepted/every-setting',
    title: 'every loop limit, hook and secret, each with a valid value, is accepted',
    agent: edit((a) => ({
      ...a,
      config: {
        maxTokens: 1_024,
        temperature: 0,
        maxSteps: 4,
        maxToolCallsPerTurn: 0,
        maxToolCallsPerSession: 50,
        maxTokensPerTurn: 9_000,
        maxTokensPerSession: 90_000,
        modelTimeoutMs: 30_000,
        maxCompactionsPerStep: 0,
        maxCheckpointExtensions: 1,
        sideEffectNotice: false,
        retry: { immediateRetries: 0, immediateDelayMs: 0, backoffRetries: 2, backoffBaseMs: 500, backoffMaxMs: 4_000, jitter: 1, maxRetryAfterMs: 0 },
      },
      checkpoints: [{ name: 'tone-check', run: () => ({}) }],
      errorHandlers: [{ name: 'log-only', handle: () => undefined }],
      compactor: { compact: async () => null },
      claim: { claim: () => ({ decision: 'allow' as const }) },
      approver: { approve: async () => 'approve' as const },
      secrets: ['sk_live_51Hqexample', 'pin4'],
    })),
  },
  // --- loop limits, hooks and secrets (agent-settings.ts) ---
  {
    id: 'settings/max-steps-as-text',
    title: 'a step limit given as text',
    agent: edit((a) => ({ ...a, config: { maxSteps: odd('ten') } })),
    refused: 'config.maxSteps must be a whole number of at least 1 (got "ten")',
  },
  {
    // Mutation seed 46: the word for a list was never checked — a refusal reading "(got )" passed.
    id: 'settings/max-steps-as-a-list',
    title: 'a step limit given as a list',
    agent: edit((a) => ({ ...a, config: { maxSteps: odd([10]) } })),
    refused: 'config.maxSteps must be a whole number of at least 1 (got a list)',
  },
  {
    id: 'settings/max-steps-negative',
    title: 'a step limit of -1',
    agent: edit((a) => ({ ...a, config: { maxSteps: -1 } })),
    refused: 'config.maxSteps must be a whole number of at least 1 (got -1)',
  },
  {
    id: 'settings/model-timeout-past-node-timers',
    title: 'a model timeout of 30 days, past the longest delay a timer can wait',
    agent: edit((a) => ({ ...a, config: { modelTimeoutMs: 2_592_000_000 } })),
    refused: 'config.modelTimeoutMs must be at most 2147483647 ms, about 24.8 days: a timer fires a longer delay at once (got 2592000000)',
  },
  {
    id: 'settings/misspelled-limit',
    title: 'a limit one letter off: never silently ignored',
    agent: edit((a) => ({ ...a, config: odd({ maxStep: 3 }) })),
    refused: 'config.maxStep is not a loop setting; did you mean "maxSteps"?',
  },
  {
    id: 'settings/unknown-setting-lists-retry',
    title: 'a setting with no near name: the list of settings includes retry',
    agent: edit((a) => ({ ...a, config: odd({ maxOutputTokens: 300 }) })),
    refused:
      'config.maxOutputTokens is not a loop setting (the settings: maxTokens, temperature, maxSteps, maxToolCallsPerTurn, maxToolCallsPerSession, maxTokensPerTurn, maxTokensPerSession, modelTimeoutMs, maxCompactionsPerStep, maxCheckpointExtensions, sideEffectNotice, retry)',
  },
  {
    id: 'settings/setting-of-another-place',
    title: "a setting that is not the agent's but the operator's: the refusal says where it goes (outside probe 61, LOW-2)",
    agent: edit((a) => ({ ...a, config: odd({ toolMaxOutputChars: 4000 }) })),
    refused:
      "config.toolMaxOutputChars is not a loop setting: the cap on a tool's output is the operator's, tools.maxOutputChars in the host's YAML (a scenario's config.toolMaxOutputChars sets it for that scenario)",
  },
  {
    id: 'settings/retry-backoff-of-the-operator',
    title: "a tool retry backoff in the agent's config: the refusal says it is the operator's tools.retryBackoffMs",
    agent: edit((a) => ({ ...a, config: odd({ toolRetryBackoffMs: 500 }) })),
    refused:
      "config.toolRetryBackoffMs is not a loop setting: the wait before a tool's retry is the operator's, tools.retryBackoffMs in the host's YAML (a scenario's config.toolRetryBackoffMs sets it for that scenario)",
  },
  {
    id: 'settings/openai-agents-agent',
    title: 'an @openai/agents Agent given as the agent: one line saying what loopgate takes instead, not a line per field it does not know',
    agent: () =>
      odd(
        new (class Agent {
          name = 'billing';
          instructions = 'You help customers with their invoices.';
          handoffs = [];
          model = 'gpt-4.1';
          modelSettings = {};
          tools = [{ type: 'function', name: 'lookup_invoice', parameters: {}, invoke: async () => '{}' }];
          mcpServers = [];
        })(),
      ),
    refused:
      "an @openai/agents Agent is not a loopgate agent: gate it as it ships with openAiAgent((model) => new Agent({ model, … })) from loopgate/loops/openai-agents — its .agent here, its .loop as the config's loop",
  },
  {
    id: 'settings/handoffs-without-instructions',
    title: 'a handoffs list beside the settings, with no instructions: a key the agent does not have, not an @openai/agents Agent',
    agent: edit((a) => odd({ ...a, handoffs: [] })),
    refused:
      'handoffs is not an agent setting (the settings: tools, system, prompt, policy, visibility, approver, compactor, checkpoints, claim, errorHandlers, config, secrets)',
  },
  {
    id: 'settings/misspelled-agent-key',
    title: 'policy misspelled polcy: the approval rule is never silently dropped (a CRITICAL tool would run unasked)',
    agent: edit(({ policy, ...a }) => odd({ ...a, polcy: policy })),
    refused: 'polcy is not an agent setting; did you mean "policy"?',
  },
  {
    id: 'settings/unknown-agent-key',
    title: 'a key the agent does not have (a limit written beside config, not in it): never silently ignored',
    agent: edit((a) => odd({ ...a, maxStepsPerTurn: 3 })),
    refused:
      'maxStepsPerTurn is not an agent setting (the settings: tools, system, prompt, policy, visibility, approver, compactor, checkpoints, claim, errorHandlers, config, secrets)',
  },
  {
    id: 'settings/misspelled-retry',
    title: 'retry one letter off: did you mean "retry"',
    agent: edit((a) => ({ ...a, config: odd({ retyr: { jitter: 0 } }) })),
    refused: 'config.retyr is not a loop setting; did you mean "retry"?',
  },
  {
    id: 'settings/jitter-above-one',
    title: 'a backoff jitter of 7',
    agent: edit((a) => ({ ...a, config: { retry: { jitter: 7 } } })),
    refused: 'config.retry.jitter must be a number from 0 to 1 (got 7)',
  },
  {
    id: 'settings/retry-delay-past-node-timers',
    title: 'a backoff capped at 30 days, past the longest delay a timer can wait (the production clock would retry at once)',
    agent: edit((a) => ({ ...a, config: { retry: { backoffMaxMs: 2_592_000_000 } } })),
    refused: 'config.retry.backoffMaxMs must be at most 2147483647 ms, about 24.8 days: a timer fires a longer delay at once (got 2592000000)',
  },
  {
    id: 'settings/retry-after-limit-past-node-timers',
    title: 'a provider retry-after waited up to 30 days: a longer wait than a timer can keep',
    agent: edit((a) => ({ ...a, config: { retry: { maxRetryAfterMs: 2_592_000_000 } } })),
    refused: 'config.retry.maxRetryAfterMs must be at most 2147483647 ms, about 24.8 days: a timer fires a longer delay at once (got 2592000000)',
  },
  {
    id: 'settings/temperature-as-text',
    title: 'a temperature given as text (as read from an environment variable): never sent as a string',
    agent: edit((a) => ({ ...a, config: { temperature: odd('0.7') } })),
    refused: 'config.temperature must be a number from 0 to 2 (got "0.7")',
  },
  {
    id: 'settings/side-effect-notice-as-text',
    title: 'the side-effect notice switched off with the text "false" (as read from an environment variable): never taken as on',
    agent: edit((a) => ({ ...a, config: { sideEffectNotice: odd('false') } })),
    refused: 'config.sideEffectNotice must be true or false (got "false")',
  },
  {
    id: 'settings/checkpoint-not-a-hook',
    title: 'a checkpoint that is a number',
    agent: edit((a) => ({ ...a, checkpoints: [odd(5)] })),
    refused: 'checkpoints[0] must be an object with a name and a run function (got 5)',
  },
  {
    id: 'settings/checkpoint-given-alone',
    title: 'one checkpoint given alone, not in a list: never silently skipped (the turn would run unchecked)',
    agent: edit((a) => ({ ...a, checkpoints: odd({ name: 'refund-review', run: () => undefined }) })),
    refused: 'checkpoints must be a list (got an object)',
  },
  {
    id: 'settings/error-handler-without-handle',
    title: 'an error handler whose function is misnamed (handler, not handle): never silently skipped when a model call fails',
    agent: edit((a) => ({ ...a, errorHandlers: [odd({ name: 'page-on-call', handler: () => undefined })] })),
    refused: 'errorHandlers[0] must be an object with a name and a handle function (got an object)',
  },
  {
    id: 'settings/compactor-without-compact',
    title: 'a compactor without its compact function',
    agent: edit((a) => ({ ...a, compactor: odd({ summarize: () => 'x' }) })),
    refused: 'compactor must be an object with a compact function (got an object)',
  },
  {
    id: 'settings/secrets-one-string',
    title: 'a secret (of no credential shape) given alone, not in a list: the line names the mistake and never shows the secret',
    agent: edit((a) => ({ ...a, secrets: odd('tulip-orbit-7731-quay') })),
    refused: 'secrets must be a list of strings (got a string of 21 characters, not shown: it may be the secret itself)',
  },
  {
    id: 'settings/secret-empty',
    title: 'a secret read from an unset environment variable',
    agent: edit((a) => ({ ...a, secrets: ['sk_live_51Hqexample', ''] })),
    refused: 'secrets[1] is empty: a secret must be at least 4 characters to be redacted (is the environment variable it comes from set?)',
  },
  {
    id: 'settings/secret-too-short',
    title: 'a secret of 2 characters',
    agent: edit((a) => ({ ...a, secrets: ['ab'] })),
    refused: 'secrets[0] is 2 characters long: a secret must be at least 4 characters to be redacted (is the environment variable it comes from set?)',
  },
  // 3,000 secrets ran the host out of memory (one compiled search per form of each, outside probe 64, F20); 1,000 took
  // 20 s for a case of two turns.
  {
    id: 'settings/secrets-past-the-limit',
    title: 'more secrets than the redactor searches for (257)',
    agent: edit((a) => ({ ...a, secrets: Array.from({ length: 257 }, (_, i) => `sk_live_${String(i).padStart(4, '0')}Hqexample`) })),
    refused:
      'secrets lists 257 secrets; at most 256: each is looked for, in every form, in every text the loop writes — list the credentials this agent can reach',
  },
  {
    id: 'settings/secrets-at-the-limit',
    title: 'as many secrets as the redactor searches for (256)',
    agent: edit((a) => ({ ...a, secrets: Array.from({ length: 256 }, (_, i) => `sk_live_${String(i).padStart(4, '0')}Hqexample`) })),
  },
  {
    id: 'settings/secret-a-word-of-the-log',
    title: "a secret that is one of the loop's own words",
    agent: edit((a) => ({ ...a, secrets: ['sk_live_51Hqexample', 'status'] })),
    refused:
      'secrets[1] (6 characters) occurs in a word the loop writes into its records (a field name, status or event type): redacting it would garble every record; a secret must be the credential itself',
  },
  {
    id: 'settings/secret-an-event-type',
    title: 'a secret that is the name of one of the log’s event types (found in no field name or status)',
    agent: edit((a) => ({ ...a, secrets: ['sk_live_51Hqexample', 'turn.opened'] })),
    refused:
      'secrets[1] (11 characters) occurs in a word the loop writes into its records (a field name, status or event type): redacting it would garble every record; a secret must be the credential itself',
  },
  {
    id: 'settings/secret-a-word-nested-in-the-catalogue',
    title:
      'a secret that is a word of the log found only inside a list or union of its schemas (a content block’s type, `tool_call`, in every assistant message that calls a tool)',
    agent: edit((a) => ({ ...a, secrets: ['sk_live_51Hqexample', 'tool_call'] })),
    refused:
      'secrets[1] (9 characters) occurs in a word the loop writes into its records (a field name, status or event type): redacting it would garble every record; a secret must be the credential itself',
  },
  {
    id: 'settings/secret-a-message-block-type',
    title: 'a secret that is a word of the messages the model is sent (`tool_result`, the block a tool’s result goes back in), not of the log',
    agent: edit((a) => ({ ...a, secrets: ['sk_live_51Hqexample', 'tool_result'] })),
    refused:
      'secrets[1] (11 characters) occurs in a word the loop writes into its records (a field name, status or event type): redacting it would garble every record; a secret must be the credential itself',
  },
  {
    id: 'settings/secret-inside-a-tool-name',
    title: "a secret that is part of a tool's name",
    agent: edit((a) => ({ ...a, secrets: ['sk_live_51Hqexample', 'refund'] })),
    refused:
      'secrets[1] (6 characters) occurs in the name of the tool "issue_refund": redacting it would garble every call of it; a secret must be the credential itself',
  },
  // --- tool declarations (registry.ts) ---
  {
    id: 'tool/declared-twice',
    title: 'two tools with one name',
    agent: edit((a) => ({ ...a, tools: [...a.tools, a.tools[0]!] })),
    refused: 'tool "lookup_order": declared twice (tools[0] and tools[3]); tool names must be unique: rename or remove one',
  },
  {
    id: 'tool/name-with-a-space',
    title: 'a tool name providers refuse',
    agent: withTool(tool('lookup order', 'NONE')),
    refused: 'tool "lookup order": name must be 1-64 characters of letters, digits, "_" or "-" (what providers accept)',
  },
  {
    id: 'tool/name-too-long',
    title: 'a tool name of 65 characters',
    agent: withTool(tool('t'.repeat(65), 'NONE')),
    refused: `tool "${'t'.repeat(65)}": name must be 1-64 characters of letters, digits, "_" or "-" (what providers accept)`,
  },
  // The bound itself is a name providers take (outside probe 70, toolname-63: a limit one short refused it).
  {
    id: 'accepted/tool-name-of-64-characters',
    title: 'a tool name of 64 characters, letters, digits, "_" and "-", the longest providers take, is accepted',
    agent: withTool(tool(`get-${'a1_'.repeat(20)}`, 'NONE')),
  },
  {
    id: 'tool/not-an-object',
    title: 'a tool list holding null',
    agent: edit((a) => ({ ...a, tools: [...a.tools, odd<AnyToolDeclaration>(null)] })),
    refused: 'tool "#3": declaration is not an object',
  },
  {
    id: 'tool/given-as-the-function-that-makes-it',
    title: 'a tool given as the function that makes its declaration, not called: named by the function, never checked as a declaration',
    agent: edit((a) => ({
      ...a,
      tools: [
        ...a.tools,
        odd<AnyToolDeclaration>(function cancelOrderTool() {
          return tool('cancel_order', 'STATEFUL');
        }),
      ],
    })),
    refused: 'tool "cancelOrderTool": declaration is not an object',
  },
  {
    id: 'tool/blank-description',
    title: 'a description of spaces',
    agent: withTool(tool('cancel_order', 'STATEFUL', { description: '   ' })),
    refused: 'tool "cancel_order": description is empty; it is what the model reads to decide whether to call the tool',
  },
  {
    id: 'tool/description-not-a-string',
    title: 'a description that is not a string',
    agent: withTool(tool('cancel_order', 'STATEFUL', { description: 7 as never })),
    refused: 'tool "cancel_order": description is empty; it is what the model reads to decide whether to call the tool',
  },
  {
    id: 'tool/no-input',
    title: 'no input schema',
    agent: withTool(tool('cancel_order', 'STATEFUL', { input: undefined as never })),
    refused: 'tool "cancel_order": input is missing: declare the arguments as a zod schema, e.g. input: z.object({ … })',
  },
  {
    id: 'tool/zod3-input',
    title: 'a zod 3 input schema',
    agent: withTool(tool('cancel_order', 'STATEFUL', { input: odd(z3.object({ order: z3.string() })) })),
    refused: `tool "cancel_order": input is a zod 3 schema: loopgate needs zod 4 (import { z } from 'zod' with zod@4)`,
  },
  {
    // zod's core classes (what libraries built on zod hand out) carry `_zod` but no `safeParse`, which the loop validates with.
    id: 'tool/zod-core-input',
    title: 'an input schema built from zod/v4/core, without safeParse',
    agent: withTool(
      tool('cancel_order', 'STATEFUL', {
        input: odd(new zodCore.$ZodObject({ type: 'object', shape: { order: new zodCore.$ZodString({ type: 'string' }) } })),
      }),
    ),
    refused: `tool "cancel_order": input must be a zod schema, e.g. z.object({ … }) (import { z } from 'zod' with zod@4)`,
  },
  {
    // A type's name where the schema goes: refused as not a schema, not a TypeError of the check itself.
    id: 'tool/input-a-string',
    title: "an input given as a type's name (a string), not a schema",
    agent: withTool(tool('cancel_order', 'STATEFUL', { input: odd('object') })),
    refused: `tool "cancel_order": input must be a zod schema, e.g. z.object({ … }) (import { z } from 'zod' with zod@4)`,
  },
  {
    id: 'tool/json-schema-output',
    title: 'an output given as JSON Schema',
    agent: withTool(tool('cancel_order', 'STATEFUL', { output: odd({ type: 'object' }) })),
    refused: `tool "cancel_order": output must be a zod schema, e.g. z.object({ … }) (import { z } from 'zod' with zod@4) (or leave output out)`,
  },
  {
    id: 'tool/transformed-input',
    title: 'an input schema whose .transform() changes what the tool gets (probe 6, finding 5)',
    agent: withTool(tool('count_items', 'NONE', { input: z.object({ items: z.string().transform((s) => s.split(',').length) }) })),
    refused:
      'tool "count_items": input schema changes the arguments it validates (a .transform() at items): the log records the arguments the tool runs with, which must be valid against the JSON Schema the model is offered; take the value as the model sends it and convert it in run()',
  },
  {
    id: 'tool/transform-in-a-tuple-item',
    title: 'a transform in the second item of a tuple (a date range given as two strings)',
    agent: withTool(tool('list_orders', 'NONE', { input: z.object({ range: z.tuple([z.string(), z.string().transform((s) => new Date(s).getTime())]) }) })),
    refused:
      'tool "list_orders": input schema changes the arguments it validates (a .transform() at range[1]): the log records the arguments the tool runs with, which must be valid against the JSON Schema the model is offered; take the value as the model sends it and convert it in run()',
  },
  {
    id: 'tool/transform-in-a-tuple-rest',
    title: "a transform in a tuple's rest items",
    agent: withTool(
      tool('list_orders', 'NONE', {
        input: z.object({
          ids: z.tuple(
            [z.string()],
            z.string().transform((s) => s.toUpperCase()),
          ),
        }),
      }),
    ),
    refused:
      'tool "list_orders": input schema changes the arguments it validates (a .transform() at ids[]): the log records the arguments the tool runs with, which must be valid against the JSON Schema the model is offered; take the value as the model sends it and convert it in run()',
  },
  {
    // A recursive schema whose getter reads a module not loaded yet: the check must name the tool and the error, not crash.
    id: 'tool/lazy-getter-throws',
    title: 'an input schema with a z.lazy() whose getter throws',
    // Built afresh for each build path: zod keeps a lazy's first answer, so a second conversion would report its own error.
    agent: () => withTool(tool('list_orders', 'NONE', { input: z.object({ filter: z.lazy(() => odd<{ node: z.ZodType }>(undefined).node) }) }))(),
    refused: 'tool "list_orders": input schema cannot be expressed as JSON Schema: Cannot read properties of undefined (reading \'node\')',
  },
  {
    // A recursive schema is a z.lazy(): what its getter answers is looked into as well.
    id: 'tool/transform-in-a-lazy',
    title: 'a transform inside a z.lazy()',
    agent: withTool(tool('count_items', 'NONE', { input: z.object({ unit: z.lazy(() => z.string().transform((s) => s.toUpperCase())) }) })),
    refused:
      'tool "count_items": input schema changes the arguments it validates (a .transform() at unit): the log records the arguments the tool runs with, which must be valid against the JSON Schema the model is offered; take the value as the model sends it and convert it in run()',
  },
  {
    // A record-like object: its catchall schema validates every key the shape does not name.
    id: 'tool/transform-in-a-catchall',
    title: "a transform in an object's catchall",
    agent: withTool(tool('count_items', 'NONE', { input: z.object({ unit: z.string() }).catchall(z.string().transform((s) => s.trim())) })),
    refused:
      'tool "count_items": input schema changes the arguments it validates (a .transform() at [*]): the log records the arguments the tool runs with, which must be valid against the JSON Schema the model is offered; take the value as the model sends it and convert it in run()',
  },
  {
    id: 'tool/transform-piped-on',
    title: 'a transform piped into another schema, nested in an array',
    agent: withTool(tool('count_items', 'NONE', { input: z.object({ lines: z.array(z.object({ qty: z.string().transform(Number).pipe(z.number()) })) }) })),
    refused:
      'tool "count_items": input schema changes the arguments it validates (a .transform() at lines[].qty): the log records the arguments the tool runs with, which must be valid against the JSON Schema the model is offered; take the value as the model sends it and convert it in run()',
  },
  {
    id: 'tool/codec-input',
    title: "a codec that decodes the model's string into a number",
    agent: withTool(
      tool('count_items', 'NONE', {
        input: z.object({ n: z.codec(z.string(), z.number(), { decode: (s: string) => s.length, encode: (n: number) => 'x'.repeat(n) }) }),
      }),
    ),
    refused:
      'tool "count_items": input schema changes the arguments it validates (a codec at n): the log records the arguments the tool runs with, which must be valid against the JSON Schema the model is offered; take the value as the model sends it and convert it in run()',
  },
  {
    id: 'tool/transform-in-an-optional-union-option',
    title: 'a .transform() in the second option of a union, inside .optional(): every schema a wrapper or combinator holds is looked into, not only its first',
    agent: withTool(
      tool('count_items', 'NONE', {
        input: z.object({ since: z.union([z.string(), z.number().transform((ms) => new Date(ms).toISOString())]).optional() }),
      }),
    ),
    refused:
      'tool "count_items": input schema changes the arguments it validates (a .transform() at since): the log records the arguments the tool runs with, which must be valid against the JSON Schema the model is offered; take the value as the model sends it and convert it in run()',
  },
  // Outside probe 42, F3: a pipe into a coercion loaded; the model was offered a string, the tool ran with (and the log
  // recorded) a number, and a case failed only when one called it.
  {
    id: 'tool/pipe-into-a-coercion',
    title: 'a string piped into z.coerce.number(): the model is offered a string, the tool gets a number',
    agent: withTool(tool('count_items', 'NONE', { input: z.object({ n: z.string().pipe(z.coerce.number()) }) })),
    refused:
      'tool "count_items": input schema changes the arguments it validates (a coercion piped after another schema at n): the log records the arguments the tool runs with, which must be valid against the JSON Schema the model is offered; take the value as the model sends it and convert it in run()',
  },
  {
    id: 'accepted/preprocess-default-coerce-lazy',
    title: 'schemas whose parsed value still matches what the model is offered are accepted: preprocess, default, coerce, trim, a recursive lazy',
    agent: withTool(
      tool('count_items', 'NONE', {
        input: z.object({
          n: z.preprocess((v) => (typeof v === 'number' ? String(v) : v), z.string()),
          unit: z.string().trim().default('pcs'),
          qty: z.coerce.number(),
          code: z.string().pipe(z.string().min(3)),
          tree: z.lazy(() => z.object({ name: z.string(), children: z.array(z.object({ name: z.string() })) })),
        }),
      }),
    ),
  },
  {
    id: 'tool/unknown-side-effect',
    title: 'a side-effect level that does not exist',
    agent: withTool(tool('cancel_order', odd('WRITE'))),
    refused: 'tool "cancel_order": sideEffect must be one of NONE, IDEMPOTENT, STATEFUL, CRITICAL (got "WRITE")',
  },
  {
    id: 'tool/run-not-a-function',
    title: 'run given as a string',
    agent: withTool(tool('cancel_order', 'STATEFUL', { run: odd('cancel') })),
    refused: 'tool "cancel_order": run must be a function',
  },
  {
    id: 'tool/zero-timeout',
    title: 'a timeout of 0 ms',
    agent: withTool(tool('cancel_order', 'STATEFUL', { timeoutMs: 0 })),
    refused: 'tool "cancel_order": timeoutMs must be a positive number of milliseconds (got 0)',
  },
  // Probe 18: Node's timers fire a delay past 2^31 - 1 ms after 1 ms. In the production host a tool's 30-day
  // timeout ended the call at once (TIMEOUT), while the loop case on the virtual clock waited and passed.
  {
    id: 'tool/timeout-past-node-timers',
    title: 'a timeout of 30 days, past the longest delay a timer can wait',
    agent: withTool(tool('cancel_order', 'STATEFUL', { timeoutMs: 2_592_000_000 })),
    refused: 'tool "cancel_order": timeoutMs must be at most 2147483647 ms, about 24.8 days: a timer fires a longer delay at once (got 2592000000)',
  },
  {
    id: 'tool/fractional-retries',
    title: 'maxRetries of 1.5',
    agent: withTool(tool('track_parcel', 'NONE', { maxRetries: 1.5 })),
    refused: 'tool "track_parcel": maxRetries must be a non-negative integer (got 1.5)',
  },
  {
    id: 'tool/stateful-retried',
    title: 'automatic retries of a STATEFUL tool',
    agent: withTool(tool('cancel_order', 'STATEFUL', { maxRetries: 1 })),
    refused: 'tool "cancel_order": is STATEFUL: such tools are never retried automatically, so maxRetries must be 0 or absent',
  },
  {
    id: 'tool/critical-retried',
    title: 'automatic retries of a CRITICAL tool',
    agent: withTool(tool('close_account', 'CRITICAL', { maxRetries: 3 })),
    refused: 'tool "close_account": is CRITICAL: such tools are never retried automatically, so maxRetries must be 0 or absent',
  },
  {
    id: 'accepted/render-functions',
    title: 'a tool with renderForModel and renderForPeople, each a function, is accepted',
    agent: withTool(
      tool('cancel_order', 'STATEFUL', {
        renderForModel: (output: unknown) => `cancelled: ${JSON.stringify(output)}`,
        renderForPeople: () => 'Order cancelled.',
      }),
    ),
  },
  {
    id: 'tool/render-not-a-function',
    title: 'renderForModel given as text',
    agent: withTool(tool('cancel_order', 'STATEFUL', { renderForModel: odd('as json') })),
    refused: 'tool "cancel_order": renderForModel must be a function when given',
  },
  {
    // Outside probe 57, LOW-1: a declaration whose getter throws met "internal error" and a stack, not its one line.
    id: 'tool/declaration-whose-getter-throws',
    title: 'a tool whose input getter throws (a lazily built schema that fails)',
    agent: withTool(
      Object.defineProperty(tool('cancel_order', 'STATEFUL'), 'input', {
        enumerable: true,
        get() {
          throw new Error('schema registry unreachable');
        },
      }),
    ),
    refused: 'tool "cancel_order": reading its declaration threw: schema registry unreachable',
  },
  // --- names in policy rules and visibility layers (tool-names.ts, closest-name.ts) ---
  {
    id: 'names/policy-typo',
    title: 'a policy rule naming a tool one letter off',
    agent: withPolicy({ rules: [{ id: 'no-refunds', tools: ['issue_refnd'], decision: 'deny' }] }),
    refused: 'policy rule "no-refunds": tools[0]: "issue_refnd" is not a registered tool; did you mean "issue_refund"?',
  },
  {
    id: 'names/deny-far-from-any-tool',
    title: 'a deny naming nothing near any tool: no guess',
    agent: withLayers([{ name: 'global', deny: ['wire_transfer'] }]),
    refused: 'visibility layer "global": deny[0]: "wire_transfer" is not a registered tool',
  },
  {
    id: 'names/allow-pattern-matching-nothing',
    title: 'an allow pattern that matches no tool',
    agent: withLayers([{ name: 'mode:read', allow: ['issue_*', 'lookup_ordr*'] }]),
    refused: 'visibility layer "mode:read": allow[1]: pattern "lookup_ordr*" matches no registered tool; did you mean "lookup_order"?',
  },
  {
    // Only `*` is special in a pattern (glob.ts): a dot or a `+` is a letter no tool name has, so the pattern matches none.
    id: 'names/pattern-with-a-dot-matching-nothing',
    title: 'a policy pattern written with a dot, as for a namespace (issue.*), matches no tool: no character but * is a wildcard',
    agent: withPolicy({ rules: [{ id: 'refunds-need-approval', tools: ['issue.*'], decision: 'ask' }] }),
    refused: 'policy rule "refunds-need-approval": tools[0]: pattern "issue.*" matches no registered tool',
  },
  {
    id: 'names/closest-of-several',
    title: 'the nearest of several tools is named, not the last one tried',
    agent: edit((a) => ({
      ...a,
      tools: [tool('refund_order', 'STATEFUL'), ...a.tools, tool('refund_orders_all', 'CRITICAL')],
      visibility: [{ name: 'global', deny: ['refund_ordr'] }],
    })),
    refused: 'visibility layer "global": deny[0]: "refund_ordr" is not a registered tool; did you mean "refund_order"?',
  },
  {
    id: 'names/closest-of-a-tie',
    title: 'of two tools equally near, the first declared is named',
    agent: edit((a) => ({
      ...a,
      tools: [...a.tools, tool('get_a', 'NONE'), tool('get_b', 'NONE')],
      visibility: [{ name: 'global', deny: ['get_c'] }],
    })),
    refused: 'visibility layer "global": deny[0]: "get_c" is not a registered tool; did you mean "get_a"?',
  },
  {
    id: 'names/swapped-letters-one-edit',
    title: 'two neighbouring letters swapped count as one edit: a three-letter tool typed pya is still named',
    agent: edit((a) => ({
      ...a,
      tools: [...a.tools, tool('pay', 'CRITICAL')],
      visibility: [{ name: 'global', deny: ['pya'] }],
    })),
    refused: 'visibility layer "global": deny[0]: "pya" is not a registered tool; did you mean "pay"?',
  },
  {
    // A swap is two neighbours exchanged: "pxa" shares only its last letter with the second of "pay", two edits from it.
    id: 'names/one-neighbour-shared-is-no-swap',
    title: 'a name sharing one letter with a neighbour of a tool is not a swap: pxa is two edits from pay, no guess',
    agent: edit((a) => ({
      ...a,
      tools: [...a.tools, tool('pay', 'CRITICAL')],
      visibility: [{ name: 'global', deny: ['pxa'] }],
    })),
    refused: 'visibility layer "global": deny[0]: "pxa" is not a registered tool',
  },
  // --- policy and visibility shapes (policy.ts, visibility.ts) ---
  {
    id: 'policy/rule-ids-repeat',
    title: 'two rules with one id',
    agent: withPolicy({
      rules: [
        { id: 'r', tools: ['issue_refund'], decision: 'ask' },
        { id: 'r', tools: ['lookup_order'], decision: 'allow' },
      ],
    }),
    refused: 'policy rule "r": id is used by another rule; ids must be unique (they name decisions in the log)',
  },
  {
    // Outside probe 62, LOW-1: an empty list matched no call, and the deny it wrote never denied anything.
    id: 'policy/rule-tools-empty',
    title: 'a deny rule whose tools list is empty: it would match no call',
    agent: withPolicy({ rules: [{ id: 'no-refunds', tools: [], decision: 'deny' }] }),
    refused: 'policy rule "no-refunds": tools is empty, so the rule matches no call; name a tool or a pattern, or leave tools out to match every tool',
  },
  {
    id: 'policy/rule-side-effects-empty',
    title: 'a deny rule whose sideEffects list is empty: it would match no call',
    agent: withPolicy({ rules: [{ id: 'no-writes', sideEffects: [], decision: 'deny' }] }),
    refused:
      'policy rule "no-writes": sideEffects is empty, so the rule matches no call; name a level (NONE, IDEMPOTENT, STATEFUL, CRITICAL), or leave sideEffects out to match every level',
  },
  {
    // A YAML config reads `id: 7` as a number: the line names the rule by its place, not by a value that is no id.
    id: 'policy/rule-id-a-number',
    title: 'a rule whose id is a number (as YAML reads `id: 7`)',
    agent: withPolicy({ rules: [{ id: odd(7), tools: ['issue_refund'], decision: 'ask' }] }),
    refused: 'policy rule #0: id must be a non-empty string',
  },
  {
    // Mutation seed 46: only the number half of the id check was reached; a rule `id: ""` was accepted, its decisions
    // logged under a rule with no name.
    id: 'policy/rule-id-empty',
    title: 'a rule whose id is empty (`id: ""`)',
    agent: withPolicy({ rules: [{ id: '', tools: ['issue_refund'], decision: 'ask' }] }),
    refused: 'policy rule #0: id must be a non-empty string',
  },
  {
    id: 'policy/unknown-decision',
    title: 'a decision that is not allow, deny or ask',
    agent: withPolicy({ rules: [{ id: 'r', tools: ['issue_refund'], decision: odd('block') }] }),
    refused: 'policy rule "r": decision must be allow, deny or ask (got "block")',
  },
  {
    // A YAML rule written `tools: issue_refund` (one string, not a list): matched letter by letter it would match nothing.
    id: 'policy/rule-tools-not-a-list',
    title: 'a rule whose tools is one string, not a list',
    agent: withPolicy({ rules: [{ id: 'r', tools: odd('issue_refund'), decision: 'ask' }] }),
    refused: 'policy rule "r": tools must be a list of non-empty tool names or patterns',
  },
  {
    id: 'policy/rule-tools-empty-name',
    title: 'a rule whose tools list holds an empty name',
    agent: withPolicy({ rules: [{ id: 'r', tools: ['issue_refund', ''], decision: 'deny' }] }),
    refused: 'policy rule "r": tools must be a list of non-empty tool names or patterns',
  },
  {
    id: 'policy/rule-when-not-a-function',
    title: 'a rule whose when is a value, not a predicate on the arguments',
    agent: withPolicy({ rules: [{ id: 'big-refunds', tools: ['issue_refund'], decision: 'ask', when: odd({ amount: { gt: 100 } }) }] }),
    refused: 'policy rule "big-refunds": when must be a function',
  },
  {
    // `when: async (args) => isFlagged(args)`: the policy decides at once and never awaits it; its promise is no answer.
    id: 'policy/rule-when-async',
    title: 'a rule whose when is an async function: it answers a promise, never a boolean',
    agent: withPolicy({ rules: [{ id: 'flagged-orders', tools: ['issue_refund'], decision: 'deny', when: odd(async () => true) }] }),
    refused: 'policy rule "flagged-orders": when must answer a boolean at once; an async function answers a promise, which is never awaited',
  },
  {
    id: 'policy/unknown-default',
    title: 'a default that is not allow, deny or ask',
    agent: withPolicy({ default: odd('block') }),
    refused: 'policy default must be allow, deny or ask (got "block")',
  },
  {
    id: 'policy/unknown-ask-without-approver',
    title: 'onAskWithoutApprover given as ask (it must settle the call: allow or deny)',
    agent: withPolicy({ onAskWithoutApprover: odd('ask') }),
    refused: 'policy onAskWithoutApprover must be allow or deny (got "ask")',
  },
  {
    id: 'policy/unknown-side-effect',
    title: 'a deny rule for a side-effect level one letter off (CRITCAL): never a deny that matches nothing',
    agent: withPolicy({ rules: [{ id: 'no-money', sideEffects: [odd('CRITCAL')], decision: 'deny' }] }),
    refused: 'policy rule "no-money": sideEffects[0] must be one of NONE, IDEMPOTENT, STATEFUL, CRITICAL (got "CRITCAL")',
  },
  {
    id: 'policy/side-effects-not-a-list',
    title: 'sideEffects given as one level, not a list',
    agent: withPolicy({ rules: [{ id: 'no-money', sideEffects: odd('CRITICAL'), decision: 'deny' }] }),
    refused: 'policy rule "no-money": sideEffects must be a list of side-effect levels (NONE, IDEMPOTENT, STATEFUL, CRITICAL)',
  },
  {
    id: 'policy/zero-approval-timeout',
    title: 'an approval timeout of 0 ms',
    agent: withPolicy({ approvalTimeoutMs: 0 }),
    refused: 'policy approvalTimeoutMs must be a positive number of milliseconds (got 0)',
  },
  // Probe 18: a 30-day approval window timed every approval out after 1 ms in the production host (the call
  // DENIED, "no answer from the approver in time"), while both of the gate's hosts waited for the approver.
  {
    id: 'policy/approval-timeout-past-node-timers',
    title: 'an approval timeout of 30 days, past the longest delay a timer can wait',
    agent: withPolicy({ approvalTimeoutMs: 2_592_000_000 }),
    refused: 'policy approvalTimeoutMs must be at most 2147483647 ms, about 24.8 days: a timer fires a longer delay at once (got 2592000000)',
  },
  {
    id: 'visibility/layer-without-name',
    title: 'a visibility layer without a name',
    agent: withLayers([{ name: 'global', deny: ['send_receipt'] }, odd({ deny: ['issue_refund'] })]),
    refused: 'visibility layer #1: name must be a non-empty string',
  },
  {
    id: 'visibility/layer-that-is-null',
    title: 'a visibility layer that is null (a list built with a hole filled by null)',
    agent: withLayers([{ name: 'global', deny: ['send_receipt'] }, odd(null)]),
    refused: 'visibility layer #1: name must be a non-empty string',
  },
  {
    id: 'visibility/deny-not-a-list',
    title: 'a deny given as one string',
    agent: withLayers([odd({ name: 'global', deny: 'send_receipt' })]),
    refused: 'visibility layer "global": deny must be a list of non-empty tool names or patterns',
  },
  {
    // One tool for two kinds of change, as a discriminated union: its JSON Schema is an anyOf, not an object.
    id: 'tool/input-a-union-of-objects',
    title: 'a tool whose input is a discriminated union of objects, not one object',
    agent: withTool(
      tool('change_order', 'STATEFUL', {
        input: z.discriminatedUnion('kind', [
          z.object({ kind: z.literal('address'), order: z.string() }),
          z.object({ kind: z.literal('cancel'), order: z.string() }),
        ]),
      }),
    ),
    refused: 'tool "change_order": input schema must describe an object (providers require object arguments)',
  },
  {
    // zod builds the JSON Schema the model is offered; a date has none (the model sends text): refused, naming zod's reason.
    id: 'tool/input-a-date',
    title: 'a tool whose input holds a z.date(), which no JSON Schema can express',
    agent: withTool(tool('schedule_pickup', 'STATEFUL', { input: z.object({ order: z.string(), day: z.date() }) })),
    refused: 'tool "schedule_pickup": input schema cannot be expressed as JSON Schema: Date cannot be represented in JSON Schema',
  },
  // --- more than one problem: the check lists each (deps.ts agentToolProblems) ---
  {
    id: 'listed/broken-tool-and-broken-policy',
    title: 'a broken tool and a policy rule of an unknown decision: the check lists both',
    agent: edit((a) => ({
      ...a,
      tools: [...a.tools, tool('cancel_order', 'STATEFUL', { run: odd('cancel') })],
      policy: { rules: [{ id: 'r', tools: ['issue_refund'], decision: odd('block') }] },
    })),
    refused: 'tool "cancel_order": run must be a function',
    listed: ['tool "cancel_order": run must be a function', 'policy rule "r": decision must be allow, deny or ask (got "block")'],
  },
  {
    id: 'listed/broken-tool-and-a-layer-typo',
    title: 'a broken tool and a visibility layer naming a tool one letter off: the check lists both',
    agent: edit((a) => ({
      ...a,
      tools: [...a.tools, tool('cancel_order', 'STATEFUL', { run: odd('cancel') })],
      visibility: [{ name: 'global', deny: ['send_reciept', 'cancel_order'] }],
    })),
    refused: 'tool "cancel_order": run must be a function',
    listed: [
      'tool "cancel_order": run must be a function',
      'visibility layer "global": deny[0]: "send_reciept" is not a registered tool; did you mean "send_receipt"?',
    ],
  },
  {
    id: 'listed/broken-tool-and-a-transformed-input',
    title: 'a broken tool and a tool whose input schema transforms (found only when its JSON Schema is built): the check lists both',
    agent: edit((a) => ({
      ...a,
      tools: [
        ...a.tools,
        tool('cancel_order', 'STATEFUL', { run: odd('cancel') }),
        tool('count_items', 'NONE', { input: z.object({ items: z.string().transform((s) => s.split(',').length) }) }),
      ],
    })),
    refused: 'tool "cancel_order": run must be a function',
    listed: [
      'tool "cancel_order": run must be a function',
      'tool "count_items": input schema changes the arguments it validates (a .transform() at items): the log records the arguments the tool runs with, which must be valid against the JSON Schema the model is offered; take the value as the model sends it and convert it in run()',
    ],
  },
  {
    id: 'listed/broken-layer-and-broken-policy',
    title:
      'well-declared tools, a visibility layer whose deny is not a list and a policy rule of an unknown decision: the check lists both, the refused line first',
    agent: edit((a) => ({
      ...a,
      visibility: [{ name: 'global', deny: odd('send_receipt') }],
      policy: { rules: [{ id: 'r', tools: ['issue_refund'], decision: odd('block') }] },
    })),
    refused: 'visibility layer "global": deny must be a list of non-empty tool names or patterns',
    listed: [
      'visibility layer "global": deny must be a list of non-empty tool names or patterns',
      'policy rule "r": decision must be allow, deny or ask (got "block")',
    ],
  },
  // --- prompt fragments (assembler.ts) ---
  {
    id: 'prompt/fragment-a-string',
    title: 'a fragment given as its text alone (a string, not an object)',
    agent: withFragment(odd('Never promise dates.')),
    refused: 'a prompt fragment must be an object with id, priority and text',
  },
  {
    id: 'prompt/fragment-null',
    title: 'a fragment that is null (an entry left empty in a list)',
    agent: withFragment(odd(null)),
    refused: 'a prompt fragment must be an object with id, priority and text',
  },
  {
    id: 'prompt/priority-not-a-number',
    title: 'a priority given as text',
    agent: withFragment(odd({ id: 'rules', priority: 'high', text: 'Never promise dates.' })),
    refused: 'prompt fragment "rules": priority must be a finite number (identity -100, deployment 0, tool guidance 100+)',
  },
  {
    id: 'prompt/priority-not-finite',
    title: 'a priority of NaN',
    agent: withFragment({ id: 'rules', priority: Number.NaN, text: 'Never promise dates.' }),
    refused: 'prompt fragment "rules": priority must be a finite number (identity -100, deployment 0, tool guidance 100+)',
  },
  {
    id: 'prompt/blank-id',
    title: 'a fragment id of spaces',
    agent: withFragment({ id: '  ', priority: 40, text: 'Never promise dates.' }),
    refused: 'prompt fragment "  ": id must be a non-empty string',
  },
  {
    id: 'prompt/id-not-a-string',
    title: 'a fragment id given as a number (no name to quote)',
    agent: withFragment(odd({ id: 7, priority: 40, text: 'Never promise dates.' })),
    refused: 'prompt fragment: id must be a non-empty string',
  },
  {
    id: 'prompt/text-not-text',
    title: 'a fragment whose text is a number',
    agent: withFragment(odd({ id: 'rules', priority: 40, text: 42 })),
    refused: 'prompt fragment "rules": text must be a string or a function returning one',
  },
  {
    id: 'prompt/exclusive-not-boolean',
    title: 'exclusive given as text',
    agent: withFragment(odd({ id: 'rules', priority: 40, text: 'x', exclusive: 'yes' })),
    refused: 'prompt fragment "rules": exclusive must be a boolean',
  },
  {
    id: 'prompt/id-twice',
    title: 'two fragments with one id',
    agent: withFragment({ id: 'tone', priority: 60, text: 'Be warm.' }),
    refused: 'prompt fragment "tone" is already registered; unregister it first or use another id',
  },
];
