/**
 * The kernel's public entry: the loop and its parts. Hosts — the production host,
 * the harness, a user's own — import from here and nowhere deeper.
 */
export * from './model/client.ts';
export * from './outcome.ts';
export { systemClock, type Clock } from './clock.ts';
export { InputError } from './input-error.ts';
export { loneSurrogateAt } from './well-formed.ts';
export { wellFormedData } from './model/well-formed-result.ts';
export { MAX_TIMEOUT_MS, TIMEOUT_TOO_LONG } from './timer-wheel.ts';
export { closestName, editDistance } from './closest-name.ts';
export { canonicalJson } from './canonical-json.ts';
export type { Agent, AgentContext, AgentFactory, AgentLoopConfig } from './agent.ts';
export { LOOPGATE_LOOP, ONLY_ITS_OWN_LOOP, onlyItsOwnLoop, type OnlyItsOwnLoop } from './agent.ts';
export { AgentSettingError, agentSettingProblems, checkAgentSettings, foreignAgentProblem, redactorGarbles, secretGarbles } from './agent-settings.ts';
export {
  createRedactor,
  containsSecret,
  MAX_SECRETS,
  MIN_SECRET_LENGTH,
  secretFinder,
  redactDeep,
  redactEncodedForms,
  secretsFromEnv,
  streamRedactor,
  PATTERN_HOLD,
  exactSecretStream,
  DEFAULT_SECRET_PATTERNS,
  REDACTED,
  SECRET_RULES,
  holdsSecretPiece,
  redactSecretPieces,
  type Redactor,
  type SecretRule,
  type Span,
  type StreamRedactor,
} from './redact/index.ts';

// The log
export { EventLog, isRecentlyLogged, type AppendOptions, type LogListener, type LogPrefix } from './log/event-log.ts';
export {
  EVENT_SCHEMAS,
  EVENT_VERSIONS,
  IGNORABLE_BY_DEFAULT,
  isKnownType,
  outcomeSchema,
  type EventType,
  type EventPayload,
  type Intent,
} from './log/catalogue.ts';
export { isKnown, toRecord, type AnyEvent, type Envelope, type EventRecord, type LogEvent, type OpaqueEvent } from './log/envelope.ts';
export { decodeRecords, decodeRecord } from './log/decode.ts';
export { LogAppendError, LogReadError } from './log/errors.ts';
export { toFrozenPlainData } from './log/plain-data.ts';
export type { PendingMessage, PositionIndex } from './log/positions.ts';
export { startRefused } from './log/positions.ts';

// History
export { project, ProjectionCache, SUMMARY_PREFIX } from './projection/projection.ts';
export { checkToolPairing, normalizeAssistantContent, type PairingViolation } from './projection/invariants/tool-pairing.ts';
export { contributionOf } from './projection/invariants/atomic-turns.ts';
export { checkCompactionRange } from './projection/invariants/compaction-boundary.ts';
export { estimateTokens } from './projection/estimate.ts';

// The loop
export { AgentLoop } from './loop/runner.ts';
export { SNAPSHOT_FORMAT, SnapshotMismatch, resumeFromSnapshot, snapshotOf, type LoopSnapshot } from './loop/snapshot.ts';
export { checkModelClients, loopDeps, loopConfig, agentTools, agentToolOptions, agentToolProblems, agentPrompt, type LoopDepsInput } from './loop/deps.ts';
export * from './loop/types.ts';
export { CancelScope, raceAbort, type CancelReason } from './loop/cancellation.ts';
export { DeltaStreams } from './loop/delta-streams.ts';
export { hasWakingWork, takeForNextStep, takeForTurnStart } from './loop/inbox.ts';
export { isLoopWritten, LOOP_SOURCE, messagesToReturn, type TakenMessage } from './loop/returns.ts';
export { addTokens, addUsageDetail, countable, describeError } from './loop/records.ts';
export {
  BUILT_IN_HANDLERS,
  compactionHandler,
  failFastHandler,
  retryTiersHandler,
  handleModelError,
  outcomeForTransport,
  type ErrorContext,
  type ErrorDecision,
  type ModelErrorHandler,
  type ModelErrorResult,
  type CompactionReport,
} from './loop/model-errors.ts';
export { applyCompaction, compactionCandidate, undoCompaction } from './loop/compaction.ts';
export { recomputeRequest, requestSeqs, RecomputeError, type RecordedRequest } from './loop/request.ts';

// Prompt, tools, trace
export * from './prompt/index.ts';
export * from './tools/index.ts';
export * from './trace/tracer.ts';
export { formatTraceparent, isSpanId, isTraceId, type TraceContext, type W3cTracing } from './trace/trace-context.ts';
