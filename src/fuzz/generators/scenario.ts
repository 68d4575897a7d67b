/**
 * A whole fuzz case: a scenario in the scenario-file format — provider script,
 * tool behaviours, permissions, inbox, budgets, compaction, hooks, store faults,
 * secrets — plus, sometimes, a crash point. A counterexample is therefore a
 * scenario file (and, for a crash, the event it crashed at).
 */
import fc from 'fast-check';
import { RESULT_LOSING_FAULTS, type InboxEntry, type ProviderStep, type Scenario } from '../../harness/scenario/schema.ts';
import { atScriptBoundary, boundaryArb, configArb, jitterArb, withJitter, withStallTimeout } from './budgets.ts';
import { bystanderArb, bystanderCrashArb, toBystander, type BystanderParts } from './bystander.ts';
import { aimedOverlapArb, compactionArb, overlapCompaction, overlapScript, withOverlapTurns } from './compaction.ts';
import { buildInbox, inboxCommandsArb, isPost, type InboxCommand } from './inbox.ts';
import { approverArb, operatorArb, policyArb, visibilityArb } from './policy.ts';
import { fallbackDrawArb, providerScriptDrawArb } from './provider.ts';
import { sometimes } from './optional.ts';
import { promptArb } from './prompt.ts';
import { wireCaseArb } from './wire.ts';
import { DEFAULT_RETRY } from '../../kernel/index.ts';
import { crashAtArb, failAppendsArb, failReceiptsArb, failWriteAheadsArb, storeCrashArb, type StoreCrash } from './store.ts';
import { PROBE_TOOL, toolOverridesArb, withBrokenExecutor, withSkippedRedaction, withSpanMisuse, type FuzzTool, type SideEffectLevel } from './tools.ts';
import { checkpointsArb, claimArb } from './turn-hooks.ts';

import { FUZZ_PASSPHRASE, FUZZ_PIN, FUZZ_SECRET, FUZZ_SECRETS } from './secret.ts';

export { FUZZ_SECRET } from './secret.ts';

export interface FuzzCaseOptions {
  /** The agent's tools the model calls (see fuzzTools); a scripted `probe` tool is always added. Default: none. */
  readonly tools?: readonly FuzzTool[];
  /** The agent the cases name (`agent:`); default: the registry's default agent. */
  readonly agent?: string;
  readonly maxScript?: number;
  readonly maxInbox?: number;
  /** Generate crash points (the SQLite reopen property). Default true. */
  readonly crashes?: boolean;
  /** Percent of cases whose provider is a real SDK adapter over the wire fake (any of the three). Default 20. */
  readonly wire?: number;
  /**
   * Percent of cases driven through the production host (AgentHost: its lock,
   * recovery, durable writes and answers) instead of the loop directly. Default 25.
   */
  readonly production?: number;
  /**
   * Percent of cases drawn with a bystander: a second conversation on the same host and store (kept only where a
   * scenario may have one: no crash, store faults, wire provider, faulty executor or second host). Default 20.
   */
  readonly bystander?: number;
  /**
   * Percent of cases drawn as a crash with a bystander: the one production host both conversations live in dies
   * mid-turn, and the new host's recovery sweep must close both (no store damage: a bystander shares a store without
   * faults). Default 4; never where `crashes: false` or `production: 0`.
   */
  readonly bystanderCrash?: number;
  /** Percent of cases aimed at a repeated STATEFUL or CRITICAL call, a quarter aimed at a denied first send, half the rest across a crash (`aimedRepeat`). Default 11. */
  readonly aimedRepeat?: number;
  /**
   * Percent of cases aimed at a world-changing call the model was told of only in a notice that a compaction then
   * replaces (`aimedTold`). Default 6.
   */
  readonly aimedTold?: number;
  /** Percent of cases aimed at a compaction proposed across an earlier one (`aimedOverlap`). Default 5. */
  readonly aimedOverlap?: number;
  /** Percent of cases aimed at a cancel as a tool body starts that may not heed its signal (`aimedDeaf`). Default 5. */
  readonly aimedDeaf?: number;
  /** Percent of cases whose tools' executor skips redaction (with the case's secrets only). Default 10. */
  readonly skipsRedaction?: number;
  /** Percent of cases with the operator's tool settings (the host YAML's tools.deny and tools.ask). Default 15. */
  readonly operator?: number;
}

/** The generated value: the parts of a scenario, with the inbox still as model-based commands. */
export interface FuzzParts {
  readonly scenario: Omit<Scenario, 'inbox'>;
  readonly inbox: Iterable<InboxCommand>;
  readonly secret: boolean;
  readonly crashAt: number | undefined;
  /** Without a crash point: also write the whole log to a real SQLite file, reopen it and resume. */
  readonly reopen: boolean;
  /** The arms of the scripts drawn (FuzzCase.arms). */
  readonly arms?: readonly Arm[];
  /** With several hosts: the host each message or cancel goes to, in turn (cycled over the inbox). */
  readonly vias: readonly number[] | undefined;
  /** A second conversation beside the case's, where the case may have one. */
  readonly bystander?: BystanderParts;
  /**
   * The crash (storeCrash, damage none) comes while the bystander lives in the same process: it is kept with the crash.
   * `quiet`: the case's customer writes nothing after the reopen, so only the recovery sweep closes the case's turn.
   */
  readonly bystanderCrash?: { readonly quiet: boolean };
  /** Through one production host with no crash point: the process crashes (the store damaged or not), a new host reopens it and is asked again. */
  readonly storeCrash?: StoreCrash;
  /**
   * The store refuses the write (`store.failReceipts`) of the first steer posted at a moment, or of the first whose
   * client goes away at once, if the inbox has one.
   */
  readonly refuseSteer?: 'timed steer' | 'gone steer';
  /**
   * Aimed at a client that goes away as its steer becomes the first event the store lacks: the model's first step
   * calls the probe (declared STATEFUL or CRITICAL), a steer is posted as the probe starts (everything before it
   * stored: the write-ahead barrier) and its client goes away at once, and the store refuses that steer's write.
   */
  readonly aimedSteer?: boolean;
  /**
   * Aimed at a message posted as the host gives up on fruitless turns: the first message's turn and the two after it
   * are cancelled at their first request (before the model saw it, so it goes back to the inbox and the next turn
   * takes it again) while a second message waits; a third is posted at this event (the third turn's `turn.closed`,
   * with the example agent and no retries or compaction), after that turn's closing write, and its write is refused.
   */
  readonly aimedFruitless?: number;
  /**
   * Aimed at a STATEFUL or CRITICAL call that ran and is then sent again with its id and arguments (a repeat, which
   * must never run twice): `repeat` — the model repeats it a step or so later; `crash` — through one production
   * host, the process dies as the call's body starts, a new host reopens the store, and the model's first step after
   * the reopen repeats it (the start must have been stored before the body ran: the write-ahead); `denied` —
   * through one production host, the approver denies the first send and approves the second (which runs), and the
   * model sends it a third time in the next turn.
   */
  readonly aimedRepeat?: 'repeat' | 'crash' | 'denied';
  /**
   * Aimed at a world-changing call the model was told of only in the loop's notice, then compacted away: after
   * `replied` turns that replied, turn A runs a STATEFUL or CRITICAL call and fails (its steps are not kept, so the loop
   * tells the next turn in a notice); turn B takes the notice with the customer's message and ends without a reply at
   * model request `request`, after a step or more (its steps, the notice among them, are kept): cancelled by the
   * user or a parent, or interrupted by a crash of the production host (`crash`: a new host reopens the store); the
   * next request overflows and the compactor replaces every closed turn with a summary that does not mention the call.
   */
  readonly aimedTold?: { readonly replied: number; readonly request: number; readonly ends: 'user' | 'parent' | 'crash' };
  /**
   * Aimed at a compaction proposed across an earlier one (compaction.ts, `aimedOverlapArb`): `turns` messages, each a
   * turn; the first compaction replaces the turns before the first overflow, the second proposes a range that starts
   * inside it.
   */
  readonly aimedOverlap?: { readonly turns: number };
  /**
   * Aimed at a tool body told to stop as it starts: the model's first step calls this tool — one of the agent's own
   * with side effects, or the probe, which hangs, deaf to its signal — and the user cancels as its body starts. The
   * loop must answer the call at once (`cancel-stops-the-wait`); the agent's own body must stop
   * (`tools-stop-when-told`).
   */
  readonly aimedDeaf?: string;
}

export interface FuzzCase {
  readonly scenario: Scenario;
  /** Crash before this event (reduced modulo the run's length + 1), or no crash. */
  readonly crashAt: number | undefined;
  /**
   * Without a crash point: the whole log also goes through a real SQLite file,
   * reopened and resumed, as `loopgate run` does for every case (a store that
   * reads a record back wrong is otherwise met only in the 5% with a crash point).
   */
  readonly reopen?: boolean;
  /** Arms of the generators this case was drawn from that its shape does not tell apart from other draws (drawn.ts). */
  readonly arms?: readonly Arm[];
}

/** A resend of a step's calls (provider.ts, `resent`); a fallback whose first answer is an error (`fallbackDrawArb`). */
export type Arm = 'resent' | 'fallback-fails-first';

/**
 * What every aimed case (aimedSteer, aimedFruitless) holds: one production host, no crash, no store faults and no
 * claim, so nothing keeps the probe from starting in the first step.
 */
const AIMED_BASE = {
  production: true as const,
  crashAt: undefined,
  vias: undefined,
  storeCrash: undefined,
  claim: undefined,
  failAppends: undefined,
  failWriteAheads: undefined,
};

/** What an aimed case run by the loop or one host leaves out: a crash, a second host, a claim, store faults. */
const ONE_HOST_NO_FAULTS = {
  crashAt: undefined,
  storeCrash: undefined,
  vias: undefined,
  claim: undefined,
  failAppends: undefined,
  failWriteAheads: undefined,
  failReceipts: undefined,
};

/** A team's log listener with a bug: it throws at the event types drawn (the failure record itself among them now and then). */
const listenerArb = fc.record({
  throwsOn: fc.subarray(
    ['model.request', 'model.result', 'tool.started', 'tool.result', 'user.message', 'turn.opened', 'turn.closed', 'log.listener_failed'] as const,
    {
      minLength: 1,
    },
  ),
});

/**
 * A case aimed at a repeated world-changing call: a call of a STATEFUL or CRITICAL tool (one of the agent's own, or
 * the probe declared at that level) made in the first step, with an id, then the same call again — same id, tool and
 * arguments — after `between` of the script's other steps, or, with `crash`, after the process died as its body
 * started and a new host reopened the store. Drawn at random, a repeat needs the same id, tool and arguments twice
 * and the first call to have run: fuzz met one in a few hundred cases, and never a crash inside a tool's body, so a
 * repeat run again (outside probe 15, P11) or a start not written ahead (P18) passed every seed.
 */
function aimedRepeatArb(tools: readonly FuzzTool[]) {
  const own = tools.filter((t) => !t.scripted && (t.sideEffect === 'STATEFUL' || t.sideEffect === 'CRITICAL'));
  const targets = [...own, ...tools.filter((t) => t.name === PROBE_TOOL.name)];
  return fc.record({
    call: fc.oneof(...targets.map((t) => fc.record({ name: fc.constant(t.name), args: t.args }))),
    id: fc.constantFrom('a', 'b'),
    // The probe's level when it is the tool. IDEMPOTENT too: its repeat runs again, and must carry the chain's
    // idempotency key, not one of its own (outside probe 38, P14: a repeat keyed by its renamed id passed fuzz).
    level: fc.constantFrom<SideEffectLevel>('STATEFUL', 'CRITICAL', 'IDEMPOTENT'),
    // Mostly at once (the next step); else after one or two of the script's steps (a reply ends the turn first).
    between: fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 2 }) }),
    crash: fc.boolean(),
    // The id held first by another call (the probe with other arguments: renamed, run), so the call repeated is the
    // second to get it — a repeat compared with the first only ran again (outside probe 48, HIGH-1). Never with a crash.
    reused: fc.boolean(),
    // One in four: the first send denied by the approver, the second (a repeat of a call that never started) approved
    // and run, the third sent in the next turn of the production host — a repeat of a chain whose second call started.
    // A journal that asked only whether the chain's first call started ran it twice; fuzz never drew a denial, the same
    // call twice after it and a later turn together (outside probe 69, journal-repeat-started).
    denied: fc.nat(3).map((n) => n === 0),
  });
}

/**
 * A case aimed at a tool body told to stop as it starts (`aimedDeaf`): one of the agent's own tools with side
 * effects (its body is the team's code: it must heed its signal), or the probe, hanging deaf to its signal (the loop
 * must not wait for it). Drawn at random, a hang and a cancel while it ran came together in a few cases in a
 * thousand: a loop that waited for a deaf body passed half the seeds of 300 runs (the plant waits-for-tools), and a
 * team's tool deaf to its signal every run (outside probe 52, MED-2).
 */
function aimedDeafArb(tools: readonly FuzzTool[]) {
  const own = tools.filter((t) => !t.scripted && t.sideEffect !== undefined && t.sideEffect !== 'NONE');
  const probe = fc.record({ name: fc.constant(PROBE_TOOL.name), args: fc.constant<unknown>({}) });
  return own.length === 0 ? probe : fc.oneof(probe, ...own.map((t) => fc.record({ name: fc.constant(t.name), args: t.args })));
}

/** Summaries a compactor writes of the turns it replaces: none names the world-changing call. */
const TOLD_SUMMARIES = ['The user asked about a task again.', 'Earlier: a task.', 'The user wrote a few times now; nothing was settled.'] as const;

/** How turn A fails after its world-changing call (each a failure whose steps are not kept, so the loop tells the next turn). */
const TOLD_FAILURES = ['refusal', 'unknown stop reason', 'auth', 'invalid request', 'retries spent', 'max steps'] as const;
type ToldFailure = (typeof TOLD_FAILURES)[number];

/**
 * A case aimed at a told side effect compacted away (invariant 14): a STATEFUL or CRITICAL call (one of the agent's
 * own, or the probe declared at that level) runs in turn A, which then fails — a refusal, an unknown stop reason, a
 * provider error no retry helps, retries spent on a retryable one, or the step budget — so its steps are not kept
 * and the loop tells the next turn in a notice; turn B reads the notice with the customer's message, completes one to
 * three steps and ends without a reply (cancelled, or interrupted by a crash); the next request overflows and the
 * compactor replaces A and B (and the turns that replied before them) with a summary that does not mention the call.
 * The only word of the call in the replaced range is the notice, in a user message: the loop must restate it.
 * Drawn at random, a failed turn with a world-changing call, a turn without a reply after it that kept a step, and
 * an overflow before any reply never came together: restating only calls whose result a kept turn showed passed
 * every seed (outside probe 17, R11).
 */
function aimedToldArb(tools: readonly FuzzTool[]) {
  const own = tools.filter((t) => !t.scripted && (t.sideEffect === 'STATEFUL' || t.sideEffect === 'CRITICAL'));
  const anyCall = fc.oneof(...tools.map((t) => fc.record({ name: fc.constant(t.name), args: t.args })));
  // Half the time the probe with arguments it always takes (an agent's own arguments are now and then ones its tool
  // refuses: the call then never starts); else one of the agent's own, with arguments as drawn.
  const probe = fc.record({ name: fc.constant(PROBE_TOOL.name), args: fc.constant<unknown>({}) });
  const ownCall = own.length > 0 ? fc.oneof(...own.map((t) => fc.record({ name: fc.constant(t.name), args: t.args }))) : probe;
  return fc.record({
    call: fc.oneof({ arbitrary: probe, weight: 1 }, { arbitrary: ownCall, weight: 1 }),
    id: fc.option(fc.constantFrom('a', 'b'), { nil: undefined }),
    // The probe's level when it is the tool. IDEMPOTENT too: its repeat runs again, and must carry the chain's
    // idempotency key, not one of its own (outside probe 38, P14: a repeat keyed by its renamed id passed fuzz).
    level: fc.constantFrom<SideEffectLevel>('STATEFUL', 'CRITICAL', 'IDEMPOTENT'),
    // Turns that replied before A: the compactor's range then covers more than A and B.
    replied: fc.integer({ min: 0, max: 2 }),
    fails: fc.constantFrom<ToldFailure>(...TOLD_FAILURES),
    // Retries spent (retries spent): immediate ones, then the error once more.
    retries: fc.integer({ min: 0, max: 2 }),
    // B's steps before it ends (each a call of any tool: its result kept with the notice), and what they call.
    steps: fc.array(anyCall, { minLength: 1, maxLength: 3 }),
    ends: fc.constantFrom<'user' | 'parent' | 'crash'>('user', 'user', 'parent', 'crash'),
    overflow: fc.constantFrom<'request' | 'generation'>('request', 'generation'),
    summary: fc.constantFrom(...TOLD_SUMMARIES),
  });
}

/** The script of a told case: the replied turns, A (call, failure), B (its steps, a reply never delivered), the overflow; then the rest. */
function toldScript(
  told: {
    readonly call: { readonly name: string; readonly args: unknown };
    readonly id: string | undefined;
    readonly replied: number;
    readonly fails: ToldFailure;
    readonly retries: number;
    readonly steps: readonly { readonly name: string; readonly args: unknown }[];
    readonly overflow: 'request' | 'generation';
  },
  rest: readonly ProviderStep[],
): { script: ProviderStep[]; request: number } {
  const replies: ProviderStep[] = Array.from({ length: told.replied }, () => ({ reply: 'Here is what I found.' }));
  const call: ProviderStep = { tool_use: [{ ...(told.id !== undefined ? { id: told.id } : {}), name: told.call.name, args: told.call.args }] };
  const steps: ProviderStep[] = told.steps.map((c) => ({ tool_use: [{ name: c.name, args: c.args }] }));
  const failure: ProviderStep[] =
    told.fails === 'refusal'
      ? [{ refusal: 'I cannot continue with this request.' }]
      : told.fails === 'unknown stop reason'
        ? [{ unknown: 'pause_turn' }]
        : told.fails === 'auth'
          ? [{ error: { kind: 'auth', status: 401 } }]
          : told.fails === 'invalid request'
            ? [{ error: { kind: 'invalid_request', status: 400 } }]
            : told.fails === 'retries spent'
              ? Array.from({ length: told.retries + 1 }, (): ProviderStep => ({ error: { kind: 'server_error', status: 503 } }))
              : // The step budget (B's steps + 1) spent by A's call and as many steps as B takes: no request after.
                steps;
  const a = [call, ...failure];
  const b = [...steps, { reply: 'never delivered: the turn ends first', latencyMs: 5_000 }];
  const c: ProviderStep[] = [{ overflow: told.overflow }, { reply: 'Your earlier request may already have gone through; I will check first.' }];
  return { script: [...replies, ...a, ...b, ...c, ...rest], request: replies.length + a.length + b.length };
}

export function fuzzPartsArb(options: FuzzCaseOptions = {}): fc.Arbitrary<FuzzParts> {
  const tools = [...(options.tools ?? []).filter((t) => t.name !== PROBE_TOOL.name), PROBE_TOOL];
  return fc
    .record({
      tools: toolOverridesArb(tools),
      script: providerScriptDrawArb(tools, options.maxScript ?? 14),
      fallback: sometimes(fallbackDrawArb(tools), 25),
      inbox: inboxCommandsArb(tools, options.maxInbox ?? 8),
      config: configArb,
      boundary: sometimes(boundaryArb, 50),
      policy: sometimes(policyArb(tools), 50),
      approver: sometimes(approverArb, 60),
      visibility: sometimes(visibilityArb(tools), 20),
      compaction: sometimes(compactionArb, 50),
      // Half the time with a low limit on their extensions (0 or 1): a hook whose last answer extends asks again at every
      // close, and the default limit (3) takes more replies than most scripts hold (outside probe 68: one extension
      // past the limit passed every seed).
      checkpoints: sometimes(fc.tuple(checkpointsArb, sometimes(fc.integer({ min: 0, max: 1 }), 50)), 10),
      claim: sometimes(claimArb, 10),
      prompt: sometimes(promptArb, 25),
      wire: sometimes(wireCaseArb(tools), options.wire ?? 20),
      failAppends: sometimes(failAppendsArb, 15),
      // A refused write-ahead, half the time with an executor that breaks its contract for every tool: the loop must
      // then answer the call itself, and it never ran (NOT_RUN, not "may have run").
      failWriteAheads: sometimes(fc.tuple(failWriteAheadsArb, sometimes(fc.constantFrom(...RESULT_LOSING_FAULTS), 60)), 20),
      secret: fc.boolean(),
      crashAt: options.crashes === false ? fc.constant(undefined) : sometimes(crashAtArb, 5),
      reopen: options.crashes === false ? fc.constant(false) : sometimes(fc.constant(true), 20).map((r) => r === true),
      production: sometimes(fc.constant(true), options.production ?? 25),
      // The host's trace mode dev now and then: lifecycle misuse (a misuses-span executor's late span) throws at the caller.
      devTrace: sometimes(fc.constant(true), 15),
      // An executor that keeps the spans of every call it answers and opens a child under each once the case is over.
      // Half the time in trace mode dev, where the misuse must throw at it instead.
      spanMisuse: sometimes(fc.boolean(), 12),
      // Two live hosts over the one store (as on a shared PostgreSQL), each client choosing one.
      vias: sometimes(fc.array(fc.integer({ min: 1, max: 2 }), { minLength: 1, maxLength: 6 }), 30),
      // Last, so adding it left every other part of a seed's cases as it was.
      jitter: sometimes(jitterArb, 25),
      // After jitter, for the same reason.
      bystander: sometimes(bystanderArb, options.bystander ?? 20),
      // After jitter, for the same reason: a crash through the production host, what it did to the store, and a reopen.
      storeCrash: sometimes(storeCrashArb, 45),
      // The write of a client's message refused (a steer's, mostly: a running turn may take it first).
      // Mostly the receipt of the first steer posted at a moment (a running turn may take it before its write fails), or
      // of the first whose client goes away at once (found as the inbox is built).
      failReceipts: sometimes(
        fc.oneof(
          { weight: 3, arbitrary: fc.constant('gone steer' as const) },
          { weight: 2, arbitrary: fc.constant('timed steer' as const) },
          { weight: 1, arbitrary: failReceiptsArb },
        ),
        40,
      ),
      // Last, for the same reason: a case aimed at a steer gone at once as a world-changing call starts (aimedSteer).
      aimedSteer: sometimes(fc.constantFrom<SideEffectLevel>('STATEFUL', 'STATEFUL', 'CRITICAL'), 8),
      // After it: a case aimed at a message posted as the host gives up on fruitless turns (aimedFruitless).
      aimedFruitless: sometimes(fc.integer({ min: 23, max: 25 }), 5),
      // After those: a UI follows the conversation live through the production host's event stream.
      followLive: sometimes(fc.constant(true), 35),
      // Last, for the same reason: a crash of the host process a bystander's conversation lives in too.
      bystanderCrash: options.crashes === false ? fc.constant(undefined) : sometimes(bystanderCrashArb, options.bystanderCrash ?? 4),
      // Last, for the same reason: a team's log listener that throws at some event types (never with a crash).
      listener: sometimes(listenerArb, 12),
      // Last, for the same reason: a case aimed at a repeated STATEFUL or CRITICAL call, across a crash or not.
      aimedRepeat: sometimes(aimedRepeatArb(tools), options.aimedRepeat ?? 11),
      // Last, for the same reason: a case aimed at a world-changing call told in a notice, then compacted away.
      aimedTold: sometimes(aimedToldArb(tools), options.aimedTold ?? 6),
      // Last, for the same reason: a case aimed at a compaction proposed across an earlier one.
      aimedOverlap: sometimes(aimedOverlapArb, options.aimedOverlap ?? 5),
      // Last, for the same reason: with the case's secrets, every tool answered by an executor built without the
      // redactor (skips-redaction): the log's own redaction is then the last line (probe 19, P5b: a tool.result
      // builder that skipped it passed every fuzz run, the pipeline having redacted first).
      skipsRedaction: sometimes(fc.constant(true), options.skipsRedaction ?? 10),
      // Last, for the same reason: the operator's tool settings (the production host's YAML tools.deny and tools.ask),
      // a layer and a rule over the agent's own (outside probe 27, F6: fuzz never drew a tools.ask).
      operator: sometimes(operatorArb(tools), options.operator ?? 15),
      // Last, for the same reason: a case aimed at a cancel as a tool body starts that may not heed its signal.
      aimedDeaf: sometimes(aimedDeafArb(tools), options.aimedDeaf ?? 5),
      // Last, for the same reason: with the case's secrets, one of them pasted into the agent's system prompt (a key
      // on file): only the log's own redaction keeps the prompt.assembled record clean (outside probe 65, P10: a
      // log.append that skipped redaction passed every fuzz case, every other path redacting first).
      promptSecret: sometimes(fc.constantFrom(...FUZZ_SECRETS), 30),
      // Last, for the same reason: where the primary fails past its retry tiers when the fallback fails first.
      fallbackAt: fc.nat(3),
    })
    .map(({ script, fallback, ...rest }) => {
      // The scripts as drawn; which of their arms drew them is told after the aims (`arms`, below).
      const raw = reachingTheFallback({ ...rest, script: script.script, fallback: fallback?.script }, options.maxScript ?? 14);
      // An aimed case (not over the wire): through one production host, no crash, and nothing that would keep the
      // probe from starting in the first step (policy, visibility, claim, refused appends, broken executors).
      // Never where the options keep cases off the production host (`production: 0`: a seam only the loop has).
      const aiming = (options.production ?? 25) > 0 && raw.wire === undefined;
      const aimed = aiming && raw.aimedSteer !== undefined ? raw.aimedSteer : undefined;
      const fruitless = aiming && aimed === undefined && raw.aimedFruitless !== undefined ? raw.aimedFruitless : undefined;
      // A crash with a bystander: one production host, nothing the schema keeps a bystander from (store faults, broken
      // executors), the crash mid-turn with the store left whole.
      const bystanderCrash = aiming && aimed === undefined && fruitless === undefined ? raw.bystanderCrash : undefined;
      // A repeated world-changing call (not over the wire); across a crash only where the production host may be used
      // and crashes are generated.
      const repeat = raw.wire === undefined && aimed === undefined && fruitless === undefined && bystanderCrash === undefined ? raw.aimedRepeat : undefined;
      const repeatDenied = repeat !== undefined && repeat.denied && aiming;
      const repeatCrash = repeat !== undefined && !repeatDenied && repeat.crash && aiming && options.crashes !== false;
      // A world-changing call told in a notice, then compacted away (not over the wire, no other aim); interrupted by
      // a crash only where the production host may be used and crashes are generated (else cancelled by the user).
      const toldRaw =
        raw.wire === undefined && aimed === undefined && fruitless === undefined && bystanderCrash === undefined && repeat === undefined
          ? raw.aimedTold
          : undefined;
      const told = toldRaw && toldRaw.ends === 'crash' && !(aiming && options.crashes !== false) ? { ...toldRaw, ends: 'user' as const } : toldRaw;
      const toldScripted = told ? toldScript(told, raw.script) : undefined;
      // A compaction proposed across an earlier one (not over the wire, no other aim).
      const overlap = raw.wire === undefined && !aimed && fruitless === undefined && !bystanderCrash && !repeat && !told ? raw.aimedOverlap : undefined;
      // A cancel as a tool body starts that may not heed its signal (not over the wire, no other aim).
      const deaf = raw.wire === undefined && !aimed && fruitless === undefined && !bystanderCrash && !repeat && !told && !overlap ? raw.aimedDeaf : undefined;
      const p = bystanderCrash
        ? {
            ...raw,
            ...AIMED_BASE,
            failReceipts: undefined,
            spanMisuse: undefined,
            skipsRedaction: undefined,
            bystander: bystanderCrash.bystander,
            storeCrash: { damage: 'none' as const, at: bystanderCrash.at, position: 0 },
            tools: raw.tools.map(({ executor: _executor, ...t }) => t),
          }
        : fruitless
          ? {
              ...raw,
              ...AIMED_BASE,
              // The third client message's write is refused: the one posted as the third turn closes.
              failReceipts: [3],
            }
          : aimed
            ? {
                ...raw,
                ...AIMED_BASE,
                failReceipts: 'gone steer' as const,
                policy: undefined,
                visibility: undefined,
                tools: withProbeAt(raw.tools, aimed),
                script: [{ tool_use: [{ name: PROBE_TOOL.name, args: {} }] }, ...raw.script].slice(0, options.maxScript ?? 14),
              }
            : repeat && repeatDenied
              ? {
                  ...raw,
                  // One production host, no crash or store faults; a rule that asks about the call, an approver that
                  // says no, then yes; nothing else that keeps it from running (no hidden tool or operator setting).
                  ...AIMED_BASE,
                  failReceipts: undefined,
                  policy: { rules: [{ id: 'ask-first', tools: [repeat.call.name], decision: 'ask' as const }] } as NonNullable<Scenario['policy']>,
                  approver: { answers: ['deny' as const, 'approve' as const], delayMs: 0 },
                  visibility: undefined,
                  operator: undefined,
                  // Nor a budget or checkpoint hook that ends the first turn before the second send (its retry tiers stay).
                  config: raw.config.retry ? { retry: raw.config.retry } : {},
                  boundary: undefined,
                  checkpoints: undefined,
                  tools: withProbeAt(raw.tools, repeat.call.name === PROBE_TOOL.name ? repeat.level : undefined),
                  script: deniedThenRepeatedScript(raw.script, { id: repeat.id, ...repeat.call }, options.maxScript ?? 14),
                }
              : repeat
                ? {
                    ...raw,
                    // Across a crash: one production host whose process dies as the call's body starts (the store left
                    // whole), then a reopen and a message; nothing else that stops a turn or a write on the way.
                    ...(repeatCrash
                      ? {
                          ...AIMED_BASE,
                          failReceipts: undefined,
                          storeCrash: { damage: 'none' as const, at: { toolStart: repeat.call.name }, position: 0 },
                        }
                      : { claim: undefined, failWriteAheads: undefined }),
                    // Nothing that keeps the first call from running: no rule, no hidden tool, its executor sound.
                    policy: undefined,
                    visibility: undefined,
                    tools: withProbeAt(raw.tools, repeat.call.name === PROBE_TOOL.name ? repeat.level : undefined),
                    script: repeatedCallScript(
                      raw.script,
                      { id: repeat.id, ...repeat.call },
                      repeatCrash ? 0 : repeat.between,
                      options.maxScript ?? 14,
                      repeat.reused && !repeatCrash,
                    ),
                  }
                : told && toldScripted
                  ? {
                      ...raw,
                      // One host, no crash point or store faults, no claim or checkpoints, no fallback model (it would
                      // take over A's failure) and budgets only where the failure needs one: nothing else ends a turn.
                      ...AIMED_BASE,
                      production: told.ends === 'crash' ? true : raw.production,
                      failReceipts: undefined,
                      spanMisuse: undefined,
                      skipsRedaction: undefined,
                      checkpoints: undefined,
                      fallback: undefined,
                      boundary: undefined,
                      listener: told.ends === 'crash' ? undefined : raw.listener,
                      config: {
                        ...(told.fails === 'max steps' ? { maxSteps: told.steps.length + 1 } : {}),
                        ...(told.fails === 'retries spent' ? { retry: { immediateRetries: told.retries, backoffRetries: 0 } } : {}),
                      },
                      compaction: [{ summary: told.summary }],
                      // Nothing that keeps the call from running: no rule, no hidden tool, its executor sound.
                      policy: undefined,
                      visibility: undefined,
                      tools: withProbeAt(raw.tools, told.call.name === PROBE_TOOL.name ? told.level : undefined),
                      script: toldScripted.script.slice(0, Math.max(options.maxScript ?? 14, toldScripted.request + 2)),
                    }
                  : overlap
                    ? {
                        ...raw,
                        // No crash point, store faults, claim, checkpoints, fallback model or budgets: nothing else ends a turn.
                        ...ONE_HOST_NO_FAULTS,
                        checkpoints: undefined,
                        fallback: undefined,
                        boundary: undefined,
                        config: {},
                        compaction: overlapCompaction(overlap),
                        script: overlapScript(overlap, raw.script),
                      }
                    : deaf
                      ? {
                          ...raw,
                          // One host, no crash or store faults, nothing that keeps the call from starting in the first
                          // step (no rule, hidden tool, approver, operator setting, claim or broken executor).
                          ...ONE_HOST_NO_FAULTS,
                          policy: undefined,
                          visibility: undefined,
                          approver: undefined,
                          operator: undefined,
                          tools: raw.tools.map(({ executor: _executor, ...t }) => {
                            if (t.name !== deaf.name) return t;
                            // The probe hangs, deaf to its signal; the agent's own tool runs its own body.
                            const { behaviour: _behaviour, ...rest } = t;
                            return t.name === PROBE_TOOL.name ? { ...rest, behaviour: ['hang' as const] } : rest;
                          }),
                          script: [{ tool_use: [{ id: 'deaf', name: deaf.name, args: deaf.args }] }, ...raw.script].slice(0, options.maxScript ?? 14),
                        }
                      : raw;
      // Which arms of the scripts were drawn (a resend, a fallback failing first) and are still in the case: the tally
      // counts those by this. Not where a wire case replaced the scripts, nor (a resend) where an aimed repeat sends a
      // call twice of its own, which would count whether or not the resend survived.
      const arms: Arm[] = [
        ...(script.resent && !p.wire && repeat === undefined ? ['resent' as const] : []),
        ...(fallback?.failsFirst && !p.wire && p.fallback !== undefined ? ['fallback-fails-first' as const] : []),
      ];
      const hosts = p.production && p.crashAt === undefined && p.vias !== undefined;
      // A crash needs the production host, and one host (a crash point of its own replays a crash another way).
      const storeCrash = p.production && p.crashAt === undefined && p.vias === undefined ? p.storeCrash : undefined;
      const damage = storeCrash?.damage;
      return {
        ...(arms.length > 0 ? { arms } : {}),
        scenario: {
          name: 'fuzz case',
          tags: ['fuzz'],
          ...(options.agent !== undefined ? { agent: options.agent } : {}),
          ...(p.production ? { host: 'production' as const } : {}),
          ...(hosts ? { hosts: 2 } : {}),
          ...(p.production && p.followLive ? { follow: 'live' as const } : {}),
          config: withCheckpointLimit(
            withJitter(
              withStallTimeout(
                p.boundary
                  ? atScriptBoundary(p.config, [...(p.wire ? p.wire.script : p.script), ...((p.wire ? p.wire.fallback : p.fallback) ?? [])], p.boundary)
                  : p.config,
                p.wire ? [...p.wire.script, ...(p.wire.fallback ?? [])] : [],
                p.wire !== undefined,
              ),
              p.jitter,
            ),
            p.checkpoints?.[1],
          ),
          tools: withSkippedRedaction(
            withSpanMisuse(p.failWriteAheads?.[1] ? withBrokenExecutor(p.tools, tools, p.failWriteAheads[1]) : p.tools, tools, p.spanMisuse !== undefined),
            tools,
            p.secret && p.skipsRedaction !== undefined,
          ),
          provider: {
            ...(p.wire ? { kind: 'wire' as const, provider: p.wire.provider, script: p.wire.script } : { kind: 'scripted' as const, script: p.script }),
            // A wire case's fallback goes over the wire too: only what the wire can say.
            ...(p.wire ? (p.wire.fallback ? { fallback: p.wire.fallback } : {}) : p.fallback ? { fallback: p.fallback } : {}),
          },
          ...(p.policy ? { policy: brokenApproverMeetsAllow(p.policy, p.approver) } : {}),
          ...(p.approver ? { approver: p.approver } : {}),
          ...(p.visibility ? { visibility: p.visibility } : {}),
          ...(p.operator || p.devTrace || p.spanMisuse
            ? { operator: { ...(p.operator ?? {}), ...(p.devTrace || p.spanMisuse ? { traceMode: 'dev' as const } : {}) } }
            : {}),
          ...(p.compaction ? { compaction: p.compaction } : {}),
          ...(p.checkpoints ? { checkpoints: p.checkpoints[0] } : {}),
          ...(p.claim ? { claim: p.claim } : {}),
          ...(p.prompt || (p.secret && p.promptSecret)
            ? {
                prompt: [
                  ...(p.prompt ?? []),
                  ...(p.secret && p.promptSecret ? [{ id: 'fragment-key', priority: 10, text: `Payment key on file: ${p.promptSecret}.` }] : []),
                ],
              }
            : {}),
          ...(p.failAppends || p.failWriteAheads || Array.isArray(p.failReceipts) || (damage !== undefined && damage !== 'none')
            ? {
                store: {
                  failAppends: p.failAppends ?? [],
                  ...(p.failWriteAheads ? { failWriteAheads: p.failWriteAheads[0] } : {}),
                  ...(Array.isArray(p.failReceipts) ? { failReceipts: p.failReceipts } : {}),
                  ...(storeCrash?.damage === 'lose' ? { loseOnCrash: [...storeCrash.seqs] } : {}),
                  ...(storeCrash?.damage === 'corrupt' ? { corruptOnCrash: [...storeCrash.seqs] } : {}),
                  ...(damage === 'snapshot' ? { corruptSnapshotOnCrash: true as const } : {}),
                },
              }
            : {}),
          ...(p.secret ? { secrets: [...FUZZ_SECRETS] } : {}),
          // Without secrets, the passphrase the script echoes is stored as plain text; across a crash of the production
          // host, the new process gains it as a secret (rotated between processes): a follower is never shown it, not even
          // where an old event holds it as a key (followers-replay-the-log).
          ...(!p.secret && storeCrash ? { secretsOnReopen: [FUZZ_PASSPHRASE] } : {}),
          // A listener is judged on the one log it listens to: no crash of any kind, one host.
          ...(p.listener && p.crashAt === undefined && storeCrash === undefined && !hosts && bystanderCrash === undefined ? { listener: p.listener } : {}),
          expect: {},
        },
        inbox: p.inbox,
        secret: p.secret,
        crashAt: p.crashAt,
        reopen: p.crashAt === undefined && p.reopen,
        vias: hosts ? p.vias : undefined,
        ...(p.bystander ? { bystander: p.bystander } : {}),
        ...(storeCrash ? { storeCrash } : {}),
        ...(bystanderCrash ? { bystanderCrash: { quiet: !bystanderCrash.writesAgain } } : {}),
        ...(typeof p.failReceipts === 'string' ? { refuseSteer: p.failReceipts } : {}),
        ...(aimed ? { aimedSteer: true } : {}),
        ...(fruitless !== undefined ? { aimedFruitless: fruitless } : {}),
        ...(repeat !== undefined ? { aimedRepeat: repeatDenied ? ('denied' as const) : repeatCrash ? ('crash' as const) : ('repeat' as const) } : {}),
        ...(told && toldScripted ? { aimedTold: { replied: told.replied, request: toldScripted.request, ends: told.ends } } : {}),
        ...(overlap ? { aimedOverlap: { turns: overlap.before + 1 + overlap.between + 1 } } : {}),
        ...(deaf ? { aimedDeaf: deaf.name } : {}),
      };
    });
}

/**
 * With a fallback whose first answer is an error the retry tiers take, the primary's script gets, `fallbackAt` steps
 * in, as many 503s as the case's config retries plus one: the step's tiers are spent and it goes to the fallback
 * (tier 3), whose error must then end the step or move further down the chain. Left to chance, the primary seldom
 * spent its tiers in a case whose fallback failed (outside probe 69, fallback-from-start: a chain that offered the
 * failing fallback itself again passed fuzz seed 1). When the fallback's error carries a retry-after, as many again
 * follow: the next turn spends its tiers inside the fallback's window, where it must not be asked
 * (`retry-after-honoured`; outside probe 69, fallback-window-ignored).
 */
function reachingTheFallback<
  P extends {
    readonly script: ProviderStep[];
    readonly fallback?: ProviderStep[] | undefined;
    readonly fallbackAt: number;
    readonly config: { readonly retry?: { readonly immediateRetries?: number; readonly backoffRetries?: number } };
  },
>(parts: P, max: number): P {
  if (parts.fallback?.[0]?.error === undefined) return parts;
  const retry = parts.config.retry;
  const tries = (retry?.immediateRetries ?? DEFAULT_RETRY.immediateRetries) + (retry?.backoffRetries ?? DEFAULT_RETRY.backoffRetries) + 1;
  const runs = parts.fallback[0].error.retryAfterMs !== undefined ? 2 : 1;
  const spent = Array.from({ length: tries * runs }, (): ProviderStep => ({ error: { kind: 'server_error', status: 503 } }));
  const at = Math.min(parts.fallbackAt, parts.script.length);
  return { ...parts, script: [...parts.script.slice(0, at), ...spent, ...parts.script.slice(at)].slice(0, max) };
}

/**
 * The tools of an aimed case: every executor sound (the drawn ones dropped), and, with `level`, the probe declared at
 * it without retries (the registry refuses retries for a tool that must never run twice).
 */
function withProbeAt<T extends { readonly name: string; readonly executor?: unknown; readonly maxRetries?: unknown }>(
  tools: readonly T[],
  level: SideEffectLevel | undefined,
) {
  return tools.map(({ executor: _executor, ...t }) => {
    if (level === undefined || t.name !== PROBE_TOOL.name) return t;
    const { maxRetries: _retries, ...probe } = t;
    return { ...probe, sideEffect: level };
  });
}

/** The first step calls `call` (with `reused`, after another call under its id); `between` of the script's steps later, the same call again (id, tool, arguments); then the rest. */
function repeatedCallScript(
  script: readonly ProviderStep[],
  call: { readonly id: string; readonly name: string; readonly args: unknown },
  between: number,
  max: number,
  reused = false,
): ProviderStep[] {
  const step: ProviderStep = { tool_use: [{ id: call.id, name: call.name, args: call.args }] };
  // Another call under the same id first: the probe with arguments no generator draws.
  const first: ProviderStep[] = reused ? [{ tool_use: [{ id: call.id, name: PROBE_TOOL.name, args: { labels: ['an earlier call under the same id'] } }] }] : [];
  return [...first, step, ...script.slice(0, between), { tool_use: [{ id: call.id, name: call.name, args: call.args }] }, ...script.slice(between)].slice(
    0,
    max,
  );
}

/**
 * The call sent, denied; sent again (a repeat of a call that never started: renamed, approved, run); a reply; the call
 * a third time in the next turn (a repeat of the chain, whose second call started); then the rest.
 */
function deniedThenRepeatedScript(
  script: readonly ProviderStep[],
  call: { readonly id: string; readonly name: string; readonly args: unknown },
  max: number,
): ProviderStep[] {
  const step = (): ProviderStep => ({ tool_use: [{ id: call.id, name: call.name, args: call.args }] });
  return [step(), step(), { reply: 'Done: it went through.' }, step(), ...script].slice(0, Math.max(max, 4));
}

/** The inbox of a case aimed at a denied call sent again: two messages (a turn each) first, then the untimed posts. */
function withDeniedThenAskedAgain(inbox: readonly InboxEntry[]): InboxEntry[] {
  return [
    { say: 'Please take care of job 1001.' },
    { say: 'Did job 1001 go through? Do it if not.' },
    ...inbox.filter((e) => isPost(e) && e.at === undefined && e.messageId === undefined),
  ];
}

/** The inbox without client message ids: a retry (a later post with an id already used) dropped, the ids left out. */
function withoutClientIds(inbox: readonly InboxEntry[]): InboxEntry[] {
  const seen = new Set<string>();
  const out: InboxEntry[] = [];
  for (const entry of inbox) {
    if (entry.messageId === undefined) {
      out.push(entry);
      continue;
    }
    if (seen.has(entry.messageId)) continue;
    seen.add(entry.messageId);
    const { messageId: _id, ...rest } = entry;
    out.push(rest as InboxEntry);
  }
  return out;
}

/**
 * The receipt number (1-based, in inbox order: posts before it are counted as received first) of the first steer
 * posted at a moment — with `gone`, of the first whose client goes away at the same moment, one as a tool starts
 * first (none through the loop, where the disconnects went); undefined without one.
 */
function steerReceipt(inbox: readonly InboxEntry[], gone: boolean): number | undefined {
  let posts = 0;
  let found: number | undefined;
  for (const [i, e] of inbox.entries()) {
    if (isPost(e)) posts++;
    if (e.steer === undefined || e.at === undefined) continue;
    const next = inbox[i + 1];
    if (!gone) return posts;
    if (next?.disconnect !== posts || JSON.stringify(next.at) !== JSON.stringify(e.at)) continue;
    // One gone as a tool that changes the world starts first: everything before it is stored then.
    if (e.at.toolStart !== undefined) return posts;
    found ??= posts;
  }
  return found;
}

/**
 * The inbox with a crash: an idle-time crash at its position (after the first
 * message), a triggered one anywhere; then, once everything settled, a new host
 * reopens the store (skipped by the driver when the crash never came) and the
 * customer writes again — the next request reads what the crash left. `quiet`:
 * nobody writes again, so only the new host's recovery sweep closes the turn.
 */
function withStoreCrash(inbox: readonly InboxEntry[], crash: StoreCrash, quiet = false): InboxEntry[] {
  const entry: InboxEntry = { crash: true, ...(crash.at !== undefined ? { at: crash.at } : {}) };
  const position = 'position' in crash && crash.at === undefined ? 1 + (crash.position % inbox.length) : inbox.length;
  const posted = retriedAfterReopen(inbox, crash, quiet);
  // Quiet: nobody writes after the reopen, so only the new host's recovery sweep closes what the crash left open.
  return [
    ...posted.inbox.slice(0, position),
    entry,
    ...posted.inbox.slice(position),
    { reopen: true },
    ...posted.retry,
    ...(quiet ? [] : [{ say: 'Hello? Are you still there?' }]),
  ];
}

/** The id a client gives its first message when the fuzzer has it post that message again after a reopen. */
const RETRIED_ID = 'client-msg-retried';

/**
 * One store crash in three that leaves the store whole (or its snapshot garbled): the customer's client, never sure
 * its first request got through, posts it again with its id after the reopen. The new host answers it from the
 * store — with what the old process stored as plain text, which the new one knows as a secret (`secretsOnReopen`):
 * the answer must be redacted as a follower's view is (host-answers-follow-outcomes; outside probe 56, plant
 * envelope-noredact: run caught it, fuzz never posted such a retry). Read from the crash's own draw, so no other
 * case changes.
 */
function retriedAfterReopen(
  inbox: readonly InboxEntry[],
  crash: StoreCrash,
  quiet: boolean,
): { readonly inbox: readonly InboxEntry[]; readonly retry: readonly InboxEntry[] } {
  if (quiet || !('position' in crash) || crash.position % 3 !== 0) return { inbox, retry: [] };
  // A plain post: not one whose client is gone, repeated (times) or sent to another host.
  const first = inbox.findIndex((e) => e.say !== undefined && e.gone === undefined && e.times === undefined && e.via === undefined);
  if (first < 0) return { inbox, retry: [] };
  const original = inbox[first]!;
  const messageId = original.messageId ?? RETRIED_ID;
  if (inbox.some((e, i) => i !== first && e.messageId === messageId)) return { inbox, retry: [] };
  const given: InboxEntry = { ...original, messageId };
  return {
    inbox: inbox.map((e, i) => (i === first ? given : e)),
    retry: [{ say: original.say, messageId }],
  };
}

/**
 * The inbox of an aimed case: its first message, then a steer posted as the probe starts and its client gone at
 * once (the second message posted), then the rest — without the rest's posts at a moment, which could come first
 * and take the steer's place among the posts; a disconnect follows its message to its new number, or goes with it.
 */
function withSteerGoneAtProbe(inbox: readonly InboxEntry[], host: 'production' | 'loop'): InboxEntry[] {
  const first = inbox.findIndex(isPost);
  if (first < 0 || host !== 'production') return [...inbox];
  const at = { toolStart: PROBE_TOOL.name };
  const out: InboxEntry[] = [...inbox.slice(0, first + 1), { steer: 'Wait — use the other address for this one.', at }, { disconnect: 2, at }];
  const renumbered = new Map<number, number>([[1, 1]]);
  let before = 1;
  let after = 2;
  for (const entry of inbox.slice(first + 1)) {
    if (isPost(entry)) {
      before++;
      if (entry.at !== undefined) continue;
      renumbered.set(before, ++after);
      out.push(entry);
    } else if (entry.disconnect !== undefined) {
      const to = renumbered.get(entry.disconnect);
      if (to !== undefined) out.push({ ...entry, disconnect: to });
    } else out.push(entry);
  }
  return out;
}

/**
 * The inbox of a case aimed at fruitless turns: the first message; a second posted and a cancel as request 1 goes
 * out, cancels as requests 2 and 3 go out (each turn cancelled before the model saw its message, which goes back to
 * the inbox); a third message at `event`; then the rest's untimed posts (what they start comes after all that).
 */
function withFruitlessTurns(inbox: readonly InboxEntry[], event: number): InboxEntry[] {
  const first = inbox.find(isPost);
  if (!first) return [...inbox];
  return [
    first,
    { say: 'And job 1002?', at: { request: 1 } },
    { cancel: 'user', at: { request: 1 } },
    { cancel: 'user', at: { request: 2 } },
    { cancel: 'user', at: { request: 3 } },
    { say: 'And job 1003?', at: { event } },
    ...inbox.filter((e) => e !== first && isPost(e) && e.at === undefined && e.messageId === undefined),
  ];
}

/**
 * The inbox of a case aimed at a told side effect: a message for each turn that replies first, then A's, then B's
 * (it takes the notice of A's call), B ended at `request` — cancelled, or the process crashes and a new host reopens
 * the store — then the message whose request overflows; then the rest's untimed posts.
 */
function withToldTurns(inbox: readonly InboxEntry[], told: NonNullable<FuzzParts['aimedTold']>): InboxEntry[] {
  const at = { request: told.request };
  return [
    ...Array.from({ length: told.replied }, (_, i): InboxEntry => ({ say: `Where is job 100${i + 1}?` })),
    { say: 'job 1002 never started, sort it out.' },
    { say: 'So, is it done? I have been waiting for three weeks now and nobody has told me anything about the result.' },
    ...(told.ends === 'crash' ? [{ crash: true, at } as const, { reopen: true } as const] : [{ cancel: told.ends, at }]),
    { say: 'Hello? Did it go through?' },
    ...inbox.filter((e) => isPost(e) && e.at === undefined && e.messageId === undefined),
  ];
}

/** The inbox of a case aimed at a body told to stop: its first message, the user's cancel as `tool`'s body starts, then the rest. */
function withCancelAtStart(inbox: readonly InboxEntry[], tool: string): InboxEntry[] {
  const first = inbox.findIndex(isPost);
  if (first < 0) return [...inbox];
  return [...inbox.slice(0, first + 1), { cancel: 'user', at: { toolStart: tool } }, ...inbox.slice(first + 1)];
}

/** The scenario and crash point the parts stand for (runs the inbox commands against their model). */
export function toFuzzCase(parts: FuzzParts): FuzzCase {
  let inbox: InboxEntry[] = buildInbox(parts.inbox);
  // Only the production host answers requests a client can abort, and takes a client's message ids (a retry).
  if (parts.scenario.host !== 'production') inbox = withoutClientIds(inbox.filter((e) => e.disconnect === undefined));
  const vias = parts.vias;
  if (vias !== undefined) {
    let k = 0;
    inbox = inbox.map((e) => ((e.say ?? e.steer ?? e.inject ?? e.cancel) !== undefined ? { ...e, via: vias[k++ % vias.length]! } : e));
  }
  if (parts.storeCrash) inbox = withStoreCrash(inbox, parts.storeCrash, parts.bystanderCrash?.quiet === true);
  if (parts.aimedFruitless !== undefined && parts.scenario.host === 'production') inbox = withFruitlessTurns(inbox, parts.aimedFruitless);
  if (parts.aimedTold) inbox = withToldTurns(inbox, parts.aimedTold);
  if (parts.aimedOverlap) inbox = withOverlapTurns(inbox, parts.aimedOverlap.turns);
  if (parts.aimedSteer) inbox = withSteerGoneAtProbe(inbox, parts.scenario.host === 'production' ? 'production' : 'loop');
  if (parts.aimedDeaf) inbox = withCancelAtStart(inbox, parts.aimedDeaf);
  if (parts.aimedRepeat === 'denied') inbox = withDeniedThenAskedAgain(inbox);
  let scenario: Omit<Scenario, 'inbox'> = parts.scenario;
  const steer = parts.refuseSteer ? steerReceipt(inbox, parts.refuseSteer === 'gone steer') : undefined;
  if (steer !== undefined) scenario = { ...scenario, store: { failAppends: [], ...scenario.store, failReceipts: [steer] } };
  if (parts.secret) {
    // The first message carries the secret: redaction must keep it out of the log, the model's requests and the traces.
    // A retry of it is the same message: it carries the secret too.
    const first = inbox[0];
    const same = (e: InboxEntry, i: number) => i === 0 || (first?.messageId !== undefined && e.messageId === first.messageId);
    inbox = inbox.map((e, i) =>
      same(e, i) && e.say !== undefined ? { ...e, say: `${e.say} (my API key is ${FUZZ_SECRET}, passphrase ${FUZZ_PASSPHRASE}, PIN ${FUZZ_PIN})` } : e,
    );
  }
  const s = scenario;
  // A bystander only where a scenario may have one (the schema's rule): one live host, a store without faults, scripted, sound
  // executors — and no crash unless drawn with one (bystanderCrash: the crash kills the process both conversations live in).
  const bystander =
    parts.bystander &&
    parts.crashAt === undefined &&
    (parts.bystanderCrash !== undefined || !inbox.some((e) => e.crash || e.reopen)) &&
    s.hosts === undefined &&
    s.store === undefined &&
    s.provider.kind !== 'wire' &&
    !s.tools.some((t) => t.executor !== undefined)
      ? parts.bystander
      : undefined;
  let ids: string[] | undefined;
  if (bystander && s.host === 'production' && bystander.sameIds) {
    // The same ids in both conversations: the case's, and its first message's if its clients gave none.
    const first = inbox.findIndex(isPost);
    if (first >= 0 && !inbox.some((e) => e.messageId !== undefined)) inbox[first] = { ...inbox[first]!, messageId: 'client-msg-1' };
    ids = [...new Set(inbox.flatMap((e) => (e.messageId !== undefined ? [e.messageId] : [])))];
  }
  return {
    scenario: { ...s, inbox, ...(bystander ? { bystander: toBystander(bystander, ids) } : {}) },
    crashAt: parts.crashAt,
    ...(parts.reopen ? { reopen: true } : {}),
    ...(parts.arms ? { arms: parts.arms } : {}),
  };
}

/**
 * Fuzz cases: the inbox commands are run against their model as each value is
 * generated (or shrunk), so fast-check's command shrinker sees which commands ran
 * without the property running — which keeps shrinking, and replaying a path,
 * the same whatever the property does.
 */
export function fuzzCaseArb(options: FuzzCaseOptions = {}): fc.Arbitrary<FuzzCase> {
  return fuzzPartsArb(options).map(toFuzzCase);
}

/** Plain scenarios, for users composing their own properties. */
export function scenarioArb(options: FuzzCaseOptions = {}): fc.Arbitrary<Scenario> {
  return fuzzCaseArb({ ...options, crashes: false }).map((c) => c.scenario);
}

/**
 * A broken approver (an invalid answer, a throw) under a policy that says nothing
 * of the no-approver fallback is put under `onAskWithoutApprover: allow` — the one
 * setting where a loop that fell back to it when the approver broke would run
 * the call. Drawn apart, the two met too rarely: such a loop passed 300 runs
 * (outside probe 29, plant AP2).
 */
function brokenApproverMeetsAllow<P extends { readonly onAskWithoutApprover?: 'allow' | 'deny' }>(
  policy: P,
  approver: { readonly answers: readonly string[] } | undefined,
): P {
  const broken = approver?.answers.some((a) => a === 'invalid' || a === 'throw') ?? false;
  return broken && policy.onAskWithoutApprover === undefined ? { ...policy, onAskWithoutApprover: 'allow' } : policy;
}

/** The config with the case's limit on checkpoint extensions, where it drew one. */
function withCheckpointLimit(config: Scenario['config'], limit: number | undefined): Scenario['config'] {
  return limit === undefined ? config : { ...config, maxCheckpointExtensions: limit };
}
