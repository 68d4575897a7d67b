/**
 * What a loop under test can be asked to do. A scenario that needs something a
 * loop lacks is skipped for it, with the reason (requirements.ts) — never run
 * half-way and never passed silently.
 */

export const CAPABILITIES = {
  steer: 'a steer reaches the running turn at its next step',
  inject: 'an inject joins the next step and never wakes an idle loop',
  crash: 'a process crash and a reopen over the same store (recovery)',
  shutdown: 'a loop shut down mid-conversation: the running turn cancelled, no new turn started',
  'host:production': "loopgate's production host (lock, envelope)",
  bystander: "a second conversation beside the case's, on the same host and store",
  'event-triggers': 'triggers on the records of an event log (`at: { event }`, `at: { toolRecorded }`)',
  policy: 'a layered tool policy (allow, deny, ask)',
  visibility: 'tool visibility layers',
  approver: 'a human approver asked by the policy',
  'sdk-approval': "a call the agent's own tool holds for approval (the SDK's needsApproval), put to the case's approver",
  compaction: 'a compactor for context overflow',
  checkpoints: 'pre-close checkpoint hooks',
  claim: 'a claim policy deciding what a turn takes',
  'error-handlers': "the agent's own model-error handlers, asked before the loop's",
  fallback: 'a fallback model client',
  'store-faults': 'an event store with injected write faults',
  'budget:tool-calls': 'tool-call budgets per turn and per session',
  'budget:tokens': 'token budgets per turn and per session',
  'tool-timeout': 'a per-tool timeout',
  'tool-retry': 'tool retries by side-effect level',
  'model-timeout': 'a per-call model timeout',
  'side-effect-notice': "loopgate's side-effect notice (and switching it off)",
  'output-truncation': 'tool output truncated for the model',
  'tool-retry-backoff': "the operator's wait before a tool's retry, doubling with each (tools.retryBackoffMs)",
  'tool-output-schema': "a tool's declared output schema checked (a result it refuses fails the call INVALID_OUTPUT)",
  'tool-rendering': "a tool's renderForModel: the model reads its rendering of a result, not the JSON",
  'prompt-fragments': 'a system prompt assembled per request from fragments (priorities, dynamic texts, exclusive)',
  'executor-faults': "a tool executor the harness can swap for one that breaks its contract (loopgate's loop dependencies)",
  'lenient-args': 'lenient repair of malformed tool arguments',
  'non-json-args': 'an in-process model client handing over arguments JSON cannot carry (NaN): a peer only ever receives JSON text',
  'non-json-output': 'a tool output JSON cannot hold (a BigInt, a record that refers back to itself) answered as a failed call (INVALID_OUTPUT)',
  'stream-triggers': 'triggers on deltas streamed over the wire (`at: { delta }`): the harness sees a peer’s stream only through its model',
  'repeated-calls': 'a call the model sends twice in one answer (its id, tool and arguments) run once, the copy a repeat',
  'wire:anthropic': 'the Anthropic wire fake under its own provider package',
  'wire:openai-chat': 'the OpenAI Chat Completions wire fake under its own provider package',
  'wire:openai-responses': 'the OpenAI Responses wire fake under its own provider package',
  'own-client': "the team's own model client (`provider.kind: own`), answering as its contract harness's fake serves",
} as const;

export type Capability = keyof typeof CAPABILITIES;

export interface Capabilities {
  readonly supports: readonly Capability[];
  /** Where the loop keeps the conversation: loopgate's event log, the peer's own session, or the app's glue around the peer. */
  readonly history: 'event-log' | 'session' | 'app-glue';
  /** How the case's virtual clock reaches the loop: injected, or by swapping the global timers while the case runs. */
  readonly time: 'clock-injected' | 'patched-timers';
}

/** loopgate's own loop: everything. */
export const LOOPGATE_CAPABILITIES: Capabilities = {
  supports: Object.keys(CAPABILITIES) as Capability[],
  history: 'event-log',
  time: 'clock-injected',
};

/**
 * What a loop behind the port (a team's own, an adapter) cannot do, whatever it declares: the port hands it each
 * message as a turn and the world holds none of these parts — a scenario needing one would run with it dropped
 * (outside probe 45, F3, F4: a scenario's policy never reached a loop that claimed it; a steer threw inside a tool).
 */
const NOT_THROUGH_THE_PORT: Partial<Record<Capability, string>> = {
  steer: 'the port hands it each message as a turn (runTurn), never into a running one',
  inject: 'the port hands it each message as a turn (runTurn), never into a running one',
  crash: "crashes and reopens are loopgate's own host's",
  shutdown: "a shutdown is loopgate's own host's",
  'host:production': "loopgate's production host runs loopgate's loop",
  bystander: "a second conversation is loopgate's own host's",
  'event-triggers': "event seqs are loopgate's event log's",
  'executor-faults': "the executor is loopgate's loop's",
  policy: "its world holds no policy (a scenario's would be dropped)",
  visibility: "its world holds no visibility layers (a scenario's would be dropped)",
  compaction: "its world holds no compactor (a scenario's would be dropped)",
  checkpoints: "its world holds no checkpoint hooks (a scenario's would be dropped)",
  claim: "its world holds no claim policy (a scenario's would be dropped)",
  'error-handlers': "its world holds no error handlers (a scenario's would be dropped)",
  fallback: "its world holds no fallback model (a scenario's would be dropped)",
  'prompt-fragments': "its world holds no prompt fragments, only the system text (a scenario's would be dropped)",
  'tool-retry-backoff': "its world holds no operator's tool settings (a scenario's backoff would be dropped)",
};

const CAPABILITY_KEYS: readonly string[] = ['supports', 'history', 'time'];

/** What is wrong with a loop's declared capabilities (`[field, problem]`, the field under `capabilities`), or nothing. */
export function capabilitiesProblem(
  capabilities: unknown,
  closest: (name: string, known: readonly string[]) => string | undefined,
): [string, string] | undefined {
  if (capabilities === null || typeof capabilities !== 'object')
    return ['', `expected { supports, history, time }, got ${capabilities === null ? 'null' : typeof capabilities}`];
  // A misspelled key (`support`) would read as the list missing, or as nothing said at all (outside probe 46).
  for (const key of Object.keys(capabilities)) {
    if (CAPABILITY_KEYS.includes(key)) continue;
    const meant = closest(key, CAPABILITY_KEYS);
    return [key, `unknown key${meant ? ` (did you mean ${meant}?)` : ''}; known: ${CAPABILITY_KEYS.join(', ')}`];
  }
  const { supports, history, time } = capabilities as Record<string, unknown>;
  if (!Array.isArray(supports)) return ['supports', `expected a list of capabilities, got ${supports === null ? 'null' : typeof supports}`];
  for (const [i, name] of supports.entries()) {
    if (typeof name !== 'string' || !(name in CAPABILITIES)) {
      const meant = typeof name === 'string' ? closest(name, Object.keys(CAPABILITIES)) : undefined;
      return [
        `supports[${i}]`,
        `${JSON.stringify(name)} is not a capability${meant ? ` (did you mean ${meant}?)` : ''}; known: ${Object.keys(CAPABILITIES).join(', ')}`,
      ];
    }
    const why = NOT_THROUGH_THE_PORT[name as Capability];
    if (why) return [`supports[${i}]`, `a loop behind the port cannot do ${name}: ${why}`];
  }
  if (history !== 'event-log' && history !== 'session' && history !== 'app-glue')
    return ['history', `expected event-log, session or app-glue, got ${JSON.stringify(history) ?? 'undefined'}`];
  if (time !== 'clock-injected' && time !== 'patched-timers')
    return ['time', `expected clock-injected or patched-timers, got ${JSON.stringify(time) ?? 'undefined'}`];
  return undefined;
}
