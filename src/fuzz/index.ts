/**
 * Property-based fuzzing of the loop (docs/fuzzing.md): generators of
 * scenarios in the scenario-file format, the runner that checks every invariant
 * of the registry (src/harness/invariants) on each generated case and shrinks a
 * violation to a scenario file, and the helper for fuzzing your own agent with
 * your own invariants.
 */
export { runFuzz, type FuzzOptions, type FuzzResult, type FuzzFailure, type FuzzProgress } from './run-fuzz.ts';
export { fuzzAgent, fuzzTools, assertNoViolation, type FuzzAgentOptions } from './fuzz-agent.ts';
export { fuzzCaseArb, fuzzPartsArb, toFuzzCase, scenarioArb, FUZZ_SECRET, type FuzzCase, type FuzzCaseOptions, type FuzzParts } from './generators/scenario.ts';
export { providerStepArb, providerScriptArb } from './generators/provider.ts';
export { PROBE_TOOL, UNKNOWN_TOOL, behaviourArb, toolOverridesArb, type FuzzTool } from './generators/tools.ts';
export { policyArb, approverArb, visibilityArb } from './generators/policy.ts';
export { inboxCommandsArb, buildInbox, type InboxCommand } from './generators/inbox.ts';
export { configArb } from './generators/budgets.ts';
export { compactionArb } from './generators/compaction.ts';
export { claimArb, checkpointsArb } from './generators/turn-hooks.ts';
export { failAppendsArb, crashAtArb } from './generators/store.ts';
export { counterexampleYaml, writeCounterexample, type CounterexampleInfo } from './counterexample.ts';
export { reproduce } from './reproduce.ts';
export { fuzzResults } from './report.ts';
