/**
 * `loopgate.config.ts`: what a team's repository tells loopgate — its agents (each
 * a factory that builds a fresh agent per case), where its scenarios are, its own
 * invariants, and how the gate reports.
 *
 *   import { defineConfig } from 'loopgate';
 *   import { bookingAgent } from './src/agent.ts';
 *
 *   export default defineConfig({
 *     agents: { booking: bookingAgent },
 *     scenarios: ['scenarios/'],
 *   });
 *
 * Every command reads it: `loopgate run`, `fuzz`, `tables`, `contract`, and
 * `loopgate/vitest`. Paths are relative to the config file's folder.
 */
import type fc from 'fast-check';
import type { AgentFactory } from '../kernel/index.ts';
import type { Invariant } from '../harness/invariants/index.ts';
import type { JudgeSpec, ReplyPredicate } from '../harness/checks/reply-assertion-types.ts';
import type { PriceTable } from '../report/cost/price-table.ts';
import type { LoopUnderTestFactory } from '../harness/loop-port/peer-world.ts';
import type { ContractHarness } from '../../providers/contract-suite/harness.ts';

export interface LoopgateConfig {
  /** Your agents by name; a scenario picks one with `agent: NAME`. */
  readonly agents?: Readonly<Record<string, AgentFactory>>;
  /** The agent of scenarios that name none. Default: the only agent, if there is one; else `none` (scripted tools only). */
  readonly defaultAgent?: string;
  /**
   * Your own model clients (a gateway's, an in-house API's), by name, each as the
   * contract harness you check it with (docs/own-provider.md). A scenario's
   * `provider: { kind: own, client: NAME, script: [...] }` has each step of its
   * script made by that harness's fake — a 429 with its retry-after, a stream cut
   * inside a call's arguments, a refusal — and answered through your client, so
   * compound faults reach your agent through your own provider code.
   *
   *   clients: { acme: acmeHarness() }
   */
  readonly clients?: Readonly<Record<string, ContractHarness>>;
  /** Scenario files or folders. Default: `scenarios`. */
  readonly scenarios?: string | readonly string[];
  /**
   * The hosts `loopgate run` drives each scenario through: `loop` (the loop
   * directly), `production` (a real AgentHost: lock, recovery, flush, envelope),
   * or `both` (the default). A scenario's own `host:` wins; `--host` overrides this.
   */
  readonly host?: 'loop' | 'production' | 'both';
  /**
   * The loop your agent runs in: `loopgate` (the default), or another
   * framework's behind its adapter — `ai-sdk`, `openai-agents`, or one
   * configured with your options (`aiSdkLoop({ options })` from
   * `loopgate/loops/ai-sdk`). `--loop` overrides it.
   */
  readonly loop?: 'loopgate' | 'ai-sdk' | 'openai-agents' | LoopUnderTestFactory;
  /**
   * The pinned verdicts of other loops on these scenarios, by loop name: a JSON
   * file recorded from a real run (`loopgate run --loop ai-sdk --update-verdicts`).
   * With it, `loopgate run --loop ai-sdk` passes (exit 0) when the loop fails
   * exactly as pinned — its documented failures — and fails (exit 1) naming every
   * case that newly fails, newly passes or is judged differently.
   *
   *   verdicts: { 'ai-sdk': 'verdicts/ai-sdk.json' }
   */
  readonly verdicts?: Readonly<Partial<Record<'ai-sdk' | 'openai-agents', string>>>;
  /** Your own invariants, checked on every case by `loopgate run` and on every generated case by `loopgate fuzz`, after loopgate's. */
  readonly invariants?: readonly Invariant[];
  /** Default reporters (console, json, junit, markdown, html). */
  readonly reporters?: readonly string[];
  /** Where reports go, relative to this file. Default: `reports` beside it (`--out` overrides, relative to the working directory). */
  readonly out?: string;
  /** A baseline file `loopgate run` compares with (a regression fails the gate). */
  readonly baseline?: string;
  /**
   * What your models' tokens cost, per million, by model name as requests name
   * it: every case then reports its cost (per call, turn, case and suite), and
   * `--baseline` catches a cost regression. A model missing from the table is
   * reported as unpriced, never as free.
   *
   *   prices: { currency: 'USD', models: { 'gpt-4.1-mini': { input: 0.4, output: 1.6, cachedInput: 0.1 } } }
   */
  readonly prices?: { readonly currency?: string; readonly models: PriceTable['models'] };
  /**
   * Predicates on a reply, by name; a scenario uses one with `expect.assert: [{ assertion: NAME }]`.
   * Return `true` to pass, or a string saying why the reply fails.
   *
   *   assertions: { 'names-the-order': (reply) => /ORD-\d{4}/.test(reply) || 'no order number in the reply' }
   */
  readonly assertions?: Readonly<Record<string, ReplyPredicate>>;
  /**
   * Judge models for `rubric` assertions, by name: a ModelClient (or `{ client, model }`),
   * or `{ provider, model }` built through loopgate's adapters with the API key from the
   * environment — those grade live scenarios only (`--live`).
   */
  readonly judges?: Readonly<Record<string, JudgeSpec>>;
  /** The judge of rubrics that name none. Default: the only judge, if there is one. */
  readonly defaultJudge?: string;
  readonly fuzz?: {
    /** The agent to fuzz (`--agent` overrides it). Default: the default agent; with several agents and no default, name one. */
    readonly agent?: string;
    /** What the model sends each tool, by tool name: valid arguments first (fast-check shrinks towards them). */
    readonly args?: Readonly<Record<string, fc.Arbitrary<unknown>>>;
  };
}

/** Types your config (an identity function: the checks happen when loopgate loads it). */
export function defineConfig(config: LoopgateConfig): LoopgateConfig {
  return config;
}

export const CONFIG_KEYS = [
  'agents',
  'defaultAgent',
  'clients',
  'scenarios',
  'host',
  'loop',
  'verdicts',
  'invariants',
  'reporters',
  'out',
  'baseline',
  'prices',
  'assertions',
  'judges',
  'defaultJudge',
  'fuzz',
] as const;
export const FUZZ_KEYS = ['agent', 'args'] as const;
