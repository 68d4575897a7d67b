/**
 * The agent's tools as a scenario sees them. A scenario's `tools:` entry either
 * scripts the behaviour of one of the agent's own tools — its real body runs
 * unless the script says otherwise — or declares a tool the agent does not have
 * (a stub with a scripted behaviour). It may not change an own tool's
 * declaration (side-effect level, schema, timeout, retries, parallel safety,
 * description): a gate that could downgrade a refund to NONE would certify
 * something other than the agent that ships.
 *
 * Every tool is wrapped so the world counts the bodies that actually ran, by
 * tool and by call id, notes a STATEFUL or CRITICAL body that started before the
 * store held its start record, and fires `at: { toolStart }` triggers (with an `attempt` too).
 */
import { z } from 'zod';
import { ToolFailure, type AnyToolDeclaration, type Clock } from '../../kernel/index.ts';
import type { Behaviour, ScenarioTool } from '../scenario/schema.ts';
import type { FaultLog } from './fault-log.ts';
import { VirtualClock } from '../virtual-clock.ts';

/** Keys of a `tools:` entry that change a declaration: allowed only for tools the agent does not have. */
export const DECLARATION_KEYS = ['description', 'input', 'sideEffect', 'parallelSafe', 'timeoutMs', 'maxRetries'] as const;

export interface ToolScriptProblem {
  /** Index of the entry in the scenario's `tools:`. */
  readonly index: number;
  readonly key: (typeof DECLARATION_KEYS)[number];
  readonly message: string;
}

/** Entries that would change one of the agent's own tools. */
export function toolScriptProblems(own: readonly AnyToolDeclaration[], entries: readonly ScenarioTool[], agentName: string): ToolScriptProblem[] {
  const names = new Set(own.map((t) => t.name));
  const problems: ToolScriptProblem[] = [];
  entries.forEach((entry, index) => {
    if (!names.has(entry.name)) return;
    for (const key of DECLARATION_KEYS) {
      if (entry[key] === undefined) continue;
      problems.push({
        index,
        key,
        message: `${entry.name} is agent ${agentName}'s own tool: a scenario may script its behaviour, not change its ${key} (the gate must check the tool that ships)`,
      });
    }
  });
  return problems;
}

export interface ToolCounters {
  /** Tool bodies that actually ran, by tool name, and by call id. */
  readonly byTool: Map<string, number>;
  readonly byCall: Map<string, number>;
  /** By tool name, then call id: one id may name calls of different tools (a model may reuse ids across turns). */
  readonly byToolCall: Map<string, Map<string, number>>;
  /** Each body run of a call, in order: the signal it was given, and when (virtual ms) it started and ended. */
  readonly bodies: Map<string, ToolBodyRun[]>;
}

/** One run of a tool's body: `endedAt` stays undefined while it runs (or if it never ends). */
export interface ToolBodyRun {
  /** The tool whose body this is (a model may give calls of different tools one id). */
  readonly tool: string;
  readonly signal: AbortSignal;
  /** The attempt of the call this run was (1 for the first). */
  readonly attempt: number;
  /** The idempotency key the body was given (`ctx.idempotencyKey`). */
  readonly idempotencyKey: string;
  readonly startedAt: number;
  /** Its signal was aborted already when the body started: the loop ran a tool it had told to stop. */
  readonly startedStopped?: true;
  endedAt?: number;
  /** Whether the body had already ended when its signal was aborted (undefined: never aborted). */
  abortedAfterEnd?: boolean;
  /** When (virtual ms) its signal was aborted, if it was. */
  abortedAt?: number;
  /** Where the arguments the body was given were not frozen (a path, `args` for the whole), if anywhere. */
  readonly unfrozenArgs?: string;
  /**
   * A STATEFUL or CRITICAL body that started while the case's store held no start
   * record for its call: the write-ahead was skipped or not waited for, so a crash
   * now would leave no trace that the call may have run.
   */
  readonly startNotStored?: true;
  /** It failed with a ToolFailure that does not say `retryable: true`, before its signal was aborted: the call must not be run again. */
  failedForGood?: true;
  /** The agent's own code ran for it (the tool's `run`, no scripted behaviour in its place). */
  ownCode?: true;
  /** Its tool has side effects (IDEMPOTENT, STATEFUL, CRITICAL): one that runs on after being told to stop changes the world. */
  readonly changesWorld?: true;
  /** Settles when the body ends (absent for a body that ended as it returned). */
  settled?: Promise<void>;
  /** When (real ms, `performance.now()`) its signal was aborted, if it was. */
  abortedReal?: number;
  /** Told to stop while running, it had not ended this long (real ms) after, when the case was judged (`waitForToldToStop`). */
  runningAfterAbortMs?: number;
}

/**
 * How long (real ms) the case waits, once its loop is done, for the agent's own tool bodies (of tools with side
 * effects) that were told to stop
 * and still run: one that heeds its signal ends at once; one deaf to it does its write late — waited for, so the
 * case's checks (a team's own invariant among them) see it — and one still running after this is reported
 * (`tools-stop-when-told`).
 */
export const TOLD_TO_STOP_GRACE_MS = 1_000;

/**
 * Waits up to `graceMs` (real time) for the agent's own bodies of tools with side effects that were told to stop and
 * still run; marks those that do not end. A read-only body running on costs time, not a change: not waited for.
 */
export async function waitForToldToStop(counters: ToolCounters, graceMs: number = TOLD_TO_STOP_GRACE_MS): Promise<void> {
  const running: ToolBodyRun[] = [];
  for (const bodies of counters.bodies.values())
    for (const body of bodies)
      if (body.ownCode && body.changesWorld && body.abortedReal !== undefined && body.endedAt === undefined && body.settled) running.push(body);
  if (running.length === 0) return;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const grace = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, graceMs);
  });
  await Promise.race([Promise.all(running.map((b) => b.settled)), grace]);
  clearTimeout(timer);
  const now = performance.now();
  for (const body of running) if (body.endedAt === undefined) body.runningAfterAbortMs = Math.round(now - body.abortedReal!);
}

export interface ToolHooks {
  readonly clock: Clock;
  readonly faults: FaultLog;
  /** Runs as each body starts, with its attempt (for `at: { toolStart }` triggers, `attempt` among them). */
  readonly onStart: (name: string, attempt: number) => void;
  /** Whether the case's store holds this call's start with no result after it (read as a STATEFUL or CRITICAL body starts). */
  readonly startStored?: (callId: string) => boolean;
}

/** The agent's tools with the scenario's scripts applied, each counted. Throws on an entry that changes an own tool. */
export function scriptedTools(
  own: readonly AnyToolDeclaration[],
  entries: readonly ScenarioTool[],
  hooks: ToolHooks,
  agentName: string,
): { tools: AnyToolDeclaration[]; counters: ToolCounters } {
  const problems = toolScriptProblems(own, entries, agentName);
  if (problems.length > 0) throw new Error(`tools[${problems[0]!.index}].${problems[0]!.key}: ${problems[0]!.message}`);
  const tools = own.map((t) => t);
  for (const entry of entries) {
    if (tools.some((t) => t.name === entry.name)) continue;
    tools.push(stub(entry));
  }
  const counters: ToolCounters = { byTool: new Map(), byCall: new Map(), byToolCall: new Map(), bodies: new Map() };
  const behaviours = new Map(entries.filter((e) => e.behaviour).map((e) => [e.name, e.behaviour!]));
  const counted = tools.map((tool) =>
    withBehaviour(tool, behaviours.get(tool.name) ?? [], hooks, (callId, signal, args, attempt, idempotencyKey) => {
      counters.byTool.set(tool.name, (counters.byTool.get(tool.name) ?? 0) + 1);
      counters.byCall.set(callId, (counters.byCall.get(callId) ?? 0) + 1);
      const calls = counters.byToolCall.get(tool.name) ?? new Map<string, number>();
      calls.set(callId, (calls.get(callId) ?? 0) + 1);
      counters.byToolCall.set(tool.name, calls);
      const unfrozen = unfrozenPath(args, 'args');
      const writesAhead = tool.sideEffect === 'STATEFUL' || tool.sideEffect === 'CRITICAL';
      const unstored = writesAhead && hooks.startStored !== undefined && !hooks.startStored(callId);
      const body: ToolBodyRun = {
        tool: tool.name,
        signal,
        attempt,
        idempotencyKey,
        startedAt: hooks.clock.now(),
        ...(signal.aborted ? { startedStopped: true as const } : {}),
        ...(unfrozen !== undefined ? { unfrozenArgs: unfrozen } : {}),
        ...(unstored ? { startNotStored: true as const } : {}),
        ...(tool.sideEffect !== 'NONE' ? { changesWorld: true as const } : {}),
      };
      if (signal.aborted) {
        body.abortedAfterEnd = false;
        body.abortedAt = body.startedAt;
        body.abortedReal = performance.now();
      } else
        signal.addEventListener(
          'abort',
          () => {
            body.abortedAfterEnd = body.endedAt !== undefined;
            body.abortedAt = hooks.clock.now();
            body.abortedReal = performance.now();
          },
          { once: true },
        );
      counters.bodies.set(callId, [...(counters.bodies.get(callId) ?? []), body]);
      hooks.onStart(tool.name, body.attempt);
      return body;
    }),
  );
  return { tools: counted, counters };
}

/**
 * The first object or array inside `value` (itself included) that is not frozen:
 * a tool gets its arguments frozen all the way down (seed 000 §5), so a body that
 * changes them cannot change what a retry, the log or another reader sees.
 */
function unfrozenPath(value: unknown, path: string): string | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  if (!Object.isFrozen(value)) return path;
  for (const [key, child] of Object.entries(value)) {
    const found = unfrozenPath(child, Array.isArray(value) ? `${path}[${key}]` : `${path}.${key}`);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** A tool the scenario declares: it returns `{ ok: true }` unless its behaviour says otherwise. */
function stub(entry: ScenarioTool): AnyToolDeclaration {
  return {
    name: entry.name,
    description: entry.description ?? `scripted tool ${entry.name}`,
    input: inputSchema(entry.input ?? {}),
    sideEffect: entry.sideEffect ?? 'NONE',
    ...(entry.parallelSafe !== undefined ? { parallelSafe: entry.parallelSafe } : {}),
    ...(entry.timeoutMs ? { timeoutMs: entry.timeoutMs } : {}),
    ...(entry.maxRetries !== undefined ? { maxRetries: entry.maxRetries } : {}),
    run: () => ({ ok: true }),
  };
}

function withBehaviour(
  tool: AnyToolDeclaration,
  script: readonly Behaviour[],
  hooks: ToolHooks,
  ran: (callId: string, signal: AbortSignal, args: unknown, attempt: number, idempotencyKey: string) => ToolBodyRun,
): AnyToolDeclaration {
  const run = scriptedRun(tool, script, hooks);
  return {
    ...tool,
    // As a user's tool may: a value or a throw at once, or a promise.
    run: (args, ctx) => {
      const body = ran(ctx.callId, ctx.signal, args, ctx.attempt, ctx.idempotencyKey);
      if (run.nextIsOwn()) body.ownCode = true;
      const ended = () => {
        body.endedAt = hooks.clock.now();
      };
      const failed = (error: unknown): void => {
        if (!ctx.signal.aborted && saysNoRetry(error)) body.failedForGood = true;
      };
      let value: unknown;
      try {
        value = run(args, ctx);
      } catch (error) {
        ended();
        failed(error);
        throw error;
      }
      if (value === null || typeof (value as { then?: unknown } | undefined)?.then !== 'function') {
        ended();
        return value;
      }
      const settled = Promise.resolve(value);
      settled.catch(failed); // beside the chain, registered first: noted before the loop sees the rejection, in the same tick as before
      const tracked = settled.finally(ended);
      body.settled = tracked.then(
        () => undefined,
        () => undefined,
      );
      if (typeof value !== 'function') return tracked;
      // A callable thenable reaches the loop as it came, a function with a then method: only its settling is watched.
      tracked.catch(() => undefined); // a loop that never awaits it leaves no unhandled rejection
      const callable = value as (...args: unknown[]) => unknown;
      return Object.assign((...args: unknown[]) => callable(...args), { then: tracked.then.bind(tracked) });
    },
  };
}

/**
 * `ToolFailure` as another copy of the kernel's module defines it — what a tool
 * package with its own copy of loopgate throws (a second instance of the same
 * source, loaded under another URL): the same class text, so not `instanceof`
 * the loop's, which must know it by its name and fields.
 */
const ForeignToolFailure: typeof ToolFailure = (
  (await import(
    new URL(`../../kernel/tools/types${new URL(import.meta.url).pathname.endsWith('.ts') ? '.ts' : '.js'}?another-copy`, import.meta.url).href
  )) as {
    ToolFailure: typeof ToolFailure;
  }
).ToolFailure;

/** A plain Error shaped as a ToolFailure with no `retryable` field: neither an instance of the loop's class nor saying it may be retried. */
function lookAlikeWithoutRetryable(failure: ToolFailure): Error {
  return Object.assign(new Error(failure.message), { name: 'ToolFailure', code: failure.code, suggestion: failure.suggestion });
}

/** A ToolFailure (or a look-alike from another copy of the module) that does not allow a retry: `retryable` is false unless said. */
function saysNoRetry(error: unknown): boolean {
  return error instanceof Error && error.name === 'ToolFailure' && (error as { retryable?: unknown }).retryable !== true;
}

/** A tool's run with its scenario's script applied; `nextIsOwn()`: whether its next run is the tool's own code. */
function scriptedRun(
  tool: AnyToolDeclaration,
  script: readonly Behaviour[],
  hooks: ToolHooks,
): AnyToolDeclaration['run'] & { readonly nextIsOwn: () => boolean } {
  let runs = 0;
  const original = tool.run;
  const next = (): Behaviour => (script.length === 0 ? 'ok' : script[Math.min(runs, script.length - 1)]!);
  // `throw` throws at once and `return` returns at once, as a plain function does; `fail` rejects, as an async one does.
  const run: AnyToolDeclaration['run'] = (args, ctx) => {
    const behaviour = next();
    runs++;
    if (behaviour === 'ok') {
      // The tool's own body, which may wait on real I/O: virtual time waits for it (virtual-clock.ts).
      return hooks.clock instanceof VirtualClock ? hooks.clock.runBody(() => original(args, ctx)) : original(args, ctx);
    }
    if (behaviour === 'hang') {
      hooks.faults.record(`tool ${tool.name} hangs`);
      return new Promise(() => {}); // ignores even the abort: the pipeline must still settle
    }
    if ('return' in behaviour) return behaviour.return;
    if ('fail' in behaviour) {
      const copy = behaviour.fail.fromAnotherCopy;
      hooks.faults.record(
        `tool ${tool.name} fails ${behaviour.fail.code}${copy === true ? " (a ToolFailure of another copy of loopgate's module)" : copy ? ' (a look-alike ToolFailure with no retryable field)' : ''}`,
      );
      const Failure = copy === true ? ForeignToolFailure : ToolFailure;
      const failure = new Failure(behaviour.fail.code, behaviour.fail.message ?? `${tool.name} failed`, {
        ...(behaviour.fail.suggestion ? { suggestion: behaviour.fail.suggestion } : {}),
        ...(behaviour.fail.retryable !== undefined ? { retryable: behaviour.fail.retryable } : {}),
      });
      return Promise.reject(copy === 'without-retryable' ? lookAlikeWithoutRetryable(failure) : failure);
    }
    if ('throw' in behaviour) {
      hooks.faults.record(`tool ${tool.name} throws`);
      throw new Error(behaviour.throw);
    }
    if ('returnNothing' in behaviour) {
      hooks.faults.record(`tool ${tool.name} returns nothing (undefined)`);
      return undefined;
    }
    if ('returnCallableThenable' in behaviour) {
      hooks.faults.record(`tool ${tool.name} returns a callable thenable (a function with a then method)`);
      return callableThenable(() => original(args, ctx));
    }
    if ('returnNotJson' in behaviour) {
      hooks.faults.record(
        `tool ${tool.name} returns ${behaviour.returnNotJson === 'bigint' ? 'a BigInt' : 'an object that refers back to itself'} (not JSON data)`,
      );
      return notJsonOutput(behaviour.returnNotJson);
    }
    hooks.faults.record(
      `tool ${tool.name} takes ${behaviour.slow} ms${behaviour.abortable ? ', unless its signal aborts it' : behaviour.ignoresSignal ? ', whatever its signal says' : ''}`,
    );
    return hooks.clock.sleep(behaviour.slow, behaviour.ignoresSignal ? undefined : ctx.signal).then(() => {
      // An abortable wait throws as fetch does when its signal aborts.
      if (behaviour.abortable && ctx.signal.aborted) throw Object.assign(new Error('This operation was aborted'), { name: 'AbortError' });
      return behaviour.then !== undefined ? behaviour.then : original(args, ctx);
    });
  };
  return Object.assign(run, { nextIsOwn: () => next() === 'ok' });
}

/**
 * A function with a `then` method that runs `work` only when it is awaited, as a
 * lazy query builder does: a thenable by the rule `await` follows (an object or
 * a function), though no Promise.
 */
function callableThenable(work: () => unknown): PromiseLike<unknown> {
  const query = () => work();
  const then: PromiseLike<unknown>['then'] = (onFulfilled, onRejected) => Promise.resolve().then(work).then(onFulfilled, onRejected);
  return Object.assign(query, { then });
}

/** What a tool's own data can be that JSON cannot hold: a BigInt (a 64-bit count), or a record with a back-reference. */
function notJsonOutput(kind: 'bigint' | 'cycle'): unknown {
  if (kind === 'bigint') return { order_id: 'ORD-1002', rows: 2n ** 64n };
  const order: Record<string, unknown> = { id: 'ORD-1002', customer: { email: 'grace@example.com' } };
  (order.customer as Record<string, unknown>).orders = [order];
  return order;
}

/**
 * Schemas already built, by their fields in order: zod schemas are immutable, and
 * one object per field list lets the kernel's registry reuse the JSON Schema it
 * computed for it (the fuzzer builds the same scripted tools for every case).
 */
const schemas = new Map<string, z.ZodType>();
const MAX_SCHEMAS = 256;

function inputSchema(fields: Readonly<Record<string, string>>): z.ZodType {
  const key = JSON.stringify(Object.entries(fields));
  let schema = schemas.get(key);
  if (!schema) {
    if (schemas.size >= MAX_SCHEMAS) schemas.clear();
    schema = buildInputSchema(fields);
    schemas.set(key, schema);
  }
  return schema;
}

function buildInputSchema(fields: Readonly<Record<string, string>>): z.ZodType {
  const shape: Record<string, z.ZodType> = {};
  for (const [name, type] of Object.entries(fields)) {
    const optional = type.endsWith('?');
    const bare = type.replace(/\?$/, '');
    // `string[]`: a list whose every item is checked (an item's issue is nested: its path is the field, then the index).
    const list = bare.endsWith('[]');
    const base = bare.replace(/\[\]$/, '');
    const item: z.ZodType =
      base === 'string'
        ? z.string()
        : base === 'number'
          ? z.number()
          : base === 'integer'
            ? z.number().int()
            : base === 'boolean'
              ? z.boolean()
              : base === 'object'
                ? z.record(z.string(), z.unknown())
                : base === 'array'
                  ? z.array(z.unknown())
                  : z.unknown();
    const schema = list ? z.array(item) : item;
    shape[name] = optional ? schema.optional() : schema;
  }
  return z.object(shape);
}
