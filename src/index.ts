/**
 * loopgate: the kernel (the loop and its parts), the production host, the stores,
 * and the harness's programmatic API.
 */
export * from './kernel/index.ts';

// The production host
export {
  AgentHost,
  configPrompt,
  type HandleOptions,
  type HostObserver,
  type HostOptions,
  type RecoverAllOptions,
  type RecoverySweep,
} from './host/host.ts';
export {
  ConfigError,
  configSource,
  defaultHostConfig,
  hostConfigSchema,
  loadHostConfig,
  loopConfigFrom,
  parseHostConfig,
  type HostConfig,
} from './host/config.ts';
export { httpStatusFor, summarizeTurn, type Delivery, type ResponseEnvelope, type TurnSummary } from './host/envelope.ts';
export { recoverConversation, type RecoveryOptions, type RecoveryReport } from './host/recovery.ts';
export { CollectingExporter, FanOutExporter, JsonlFileExporter } from './host/trace-export.ts';
export { OtelTraceExporter, type OtelExporterOptions } from './host/otel/otel-exporter.ts';
export { parseTraceparent } from './host/traceparent.ts';
export { FollowError, type FollowOptions } from './host/follow.ts';
export { eventsHandler, streamEvents, type EventStreamOptions, type FollowableHost } from './host/sse.ts';
export { createHostFromConfig, checkHostConfig, modelSpecs, withModel, type HostFromConfigOptions, type ModelSpec } from './host/from-config.ts';

// Stores
export * from './stores/event-store.ts';
export { MemoryEventStore } from './stores/memory-store.ts';
export { SqliteEventStore } from './stores/sqlite-store.ts';
export { PostgresEventStore } from './stores/postgres-store.ts';
export { openStore } from './stores/from-config.ts';

// Providers
export { createAdapter, API_KEY_ENV, type AdapterOptions } from '../providers/clients.ts';
export type { DeadlineTimer } from '../providers/shared/call-runner.ts';
export { ScriptedModelClient, type ScriptItem, type ScriptedEntry } from '../providers/fake/scripted.ts';
export * as results from '../providers/fake/results.ts';

// The harness
export { VirtualClock } from './harness/virtual-clock.ts';
export { runScenario, type ScenarioRun, type RunOptions as ScenarioRunOptions } from './harness/second-host.ts';
export { runScenarioFile, type ScenarioFileOptions } from './harness/scenario-file.ts';
export { scriptedJudge } from './harness/judge/scripted-judge.ts';
export type { AssertionRun, JudgeSpec, ReplyPredicate } from './harness/checks/reply-assertion-types.ts';
export { checkPriceTable, type ModelPrice, type PriceTable } from './report/cost/price-table.ts';
export { costOfLog, type CallCost, type LogCost } from './report/cost/cost-of-log.ts';

// Your config: loopgate.config.ts
export { defineConfig, type LoopgateConfig } from './config/define-config.ts';
export { loadConfig, type ResolvedConfig } from './config/load-config.ts';
export { parseScenario, loadScenarioFile } from './harness/scenario/load.ts';
export { scenarioSchema, type HostMode, type Scenario } from './harness/scenario/schema.ts';

// A loop of your own under the gate (README, "Gate a loop of your own"): the port the peers' adapters implement
export type { LoopUnderTestFactory, PeerAdapter, PeerTool, PeerTurn, PeerWorld } from './harness/loop-port/peer-world.ts';
export type { PeerEnding, TurnReport } from './harness/loop-port/port.ts';
export type { Capabilities, Capability } from './harness/loop-port/capabilities.ts';
export { cancelOf, PeerCancel } from './harness/loop-port/peer-cancel.ts';

// The invariants: one registry, checked by `loopgate run` and `loopgate fuzz` alike
export { INVARIANTS, defineInvariant, firstViolation, type Invariant, type InvariantContext, type Verdict } from './harness/invariants/index.ts';

// Fuzzing (docs/fuzzing.md)
export {
  runFuzz,
  fuzzAgent,
  fuzzTools,
  assertNoViolation,
  scenarioArb,
  fuzzCaseArb,
  reproduce,
  type FuzzOptions,
  type FuzzResult,
  type FuzzFailure,
  type FuzzAgentOptions,
  type FuzzTool,
} from './fuzz/index.ts';
