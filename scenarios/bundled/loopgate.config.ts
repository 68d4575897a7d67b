/**
 * The bundled suite's config: the example after-sales support agent, its
 * scenarios, and what the fuzzer's model sends its tools. `loopgate run` uses it
 * when no loopgate.config.ts of yours is found — and it is shaped exactly like
 * yours would be.
 */
import { createWireHarness } from '../../providers/contract-suite/wire-harness.ts';
import { defineConfig } from '../../src/config/define-config.ts';
import { scriptedJudge } from '../../src/harness/judge/scripted-judge.ts';
import { supportAgent } from '../example-agent/agent.ts';
import { aiSdkCourierAgent } from '../example-agent/ai-sdk-agent.ts';
import { flakyContextAgent } from '../example-agent/flaky-context.ts';
import { remoteOrdersAgent } from '../example-agent/remote-orders.ts';
import { renderedOrdersAgent } from '../example-agent/rendered-orders.ts';
import { SUPPORT_ASSERTIONS } from '../example-agent/reply-assertions.ts';
import { SUPPORT_FUZZ_ARGS } from '../example-agent/fuzz-args.ts';

export default defineConfig({
  agents: {
    support: supportAgent,
    'support-flaky-context': flakyContextAgent,
    'support-ai-sdk': aiSdkCourierAgent,
    'support-remote-orders': remoteOrdersAgent,
    'support-rendered': renderedOrdersAgent,
  },
  defaultAgent: 'support',
  // Model clients of the team's own, each as the contract harness it is checked with (docs/own-provider.md):
  // a scenario's `provider: { kind: own, client: gateway }` puts its faults through that client. This one
  // is an OpenAI-compatible gateway's client (loopgate's own Chat Completions adapter, with its wire harness).
  clients: { gateway: createWireHarness('openai-chat') },
  scenarios: ['.'],
  // USD per million tokens. `scenario-model` is the name the scripted provider answers to;
  // the others are what live runs ask for (`--live`, LOOPGATE_LIVE_MODEL).
  prices: {
    currency: 'USD',
    models: {
      'scenario-model': { input: 3, output: 15, cachedInput: 0.3 },
      'claude-sonnet-4-5': { input: 3, output: 15, cachedInput: 0.3, cacheWrite: 3.75 },
      'gpt-4.1-mini': { input: 0.4, output: 1.6, cachedInput: 0.1 },
    },
  },
  // Reply predicates scenarios name with `expect.assert: [{ assertion: NAME }]`.
  assertions: SUPPORT_ASSERTIONS,
  // The judge of rubrics that name none. Scripted, so the gate stays offline; a team names a
  // real model here ({ provider: 'anthropic', model: 'claude-sonnet-4-5' }) for live runs.
  judges: {
    support: scriptedJudge([{ pass: true, reason: 'It states the order is still being packed and promises no date.' }], 'support-judge'),
  },
  defaultJudge: 'support',
  fuzz: { args: SUPPORT_FUZZ_ARGS },
  // What the other loops do on this suite, pinned from real runs: their documented field failures
  // (docs/field-failures.md). `loopgate run --loop ai-sdk` passes while the AI SDK loop fails exactly
  // so, and names every case that differs. Re-record: `loopgate run --loop ai-sdk --update-verdicts`.
  verdicts: { 'ai-sdk': 'verdicts/ai-sdk.json', 'openai-agents': 'verdicts/openai-agents.json' },
});
