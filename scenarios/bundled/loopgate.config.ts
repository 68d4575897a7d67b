/**
 * The bundled suite's config: the example after-sales support agent, its
 * scenarios, and what the fuzzer's model sends its tools. `loopgate run` uses it
 * when no loopgate.config.ts of yours is found — and it is shaped exactly like
 * yours would be.
 */
import { defineConfig } from '../../src/config/define-config.ts';
import { supportAgent } from '../example-agent/agent.ts';
import { flakyContextAgent } from '../example-agent/flaky-context.ts';
import { SUPPORT_FUZZ_ARGS } from '../example-agent/fuzz-args.ts';

export default defineConfig({
  agents: { support: supportAgent, 'support-flaky-context': flakyContextAgent },
  defaultAgent: 'support',
  scenarios: ['.'],
  fuzz: { args: SUPPORT_FUZZ_ARGS },
});
