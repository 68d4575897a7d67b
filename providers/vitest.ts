/**
 * `loopgate/vitest`: the shared ModelClient contract suite for your own tests.
 *
 *   import { describeModelClientContract, createWireHarness } from 'loopgate/vitest';
 *   describeModelClientContract('my anthropic config', createWireHarness('anthropic', { adapter: { model: 'claude-haiku-4-5' } }));
 *
 * Write your own `ContractHarness` to run the suite against any ModelClient.
 */
export { describeModelClientContract, type DescribeContractOptions } from './contract-suite/describe.ts';
export { BASE_REQUEST, CONTRACT_CASES, CONTRACT_CASE_LIST, type CallOutcome, type ContractCase, type Drive } from './contract-suite/cases.ts';
export type { Behaviour, StreamFault, WireTurn, ErrorKind } from './contract-suite/behaviours.ts';
export type { ContractHarness, ContractScenario, HarnessClient, ReceivedByProvider, Unsupported } from './contract-suite/harness.ts';
export { runContract, type CaseReport, type CaseStatus, type RunContractOptions } from './contract-suite/runner.ts';
export { runContractCase } from './contract-suite/run-case.ts';
export { createWireHarness, type WireHarnessOptions } from './contract-suite/wire-harness.ts';
export { createScriptedHarness } from './contract-suite/scripted-harness.ts';
export { modelResultSchema, resultProblems } from './contract-suite/result-schema.ts';
