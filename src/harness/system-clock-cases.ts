/**
 * The system clock as a case of `loopgate run`: `contract:clock/<id>`.
 *
 * Every scenario runs on the harness's virtual clock, so the timers of the clock
 * a production agent gets by default (`systemClock`, kernel/clock.ts: one shared
 * Node timer behind `setTimer`) would never be exercised by the gate: a system
 * clock whose timers never fired would leave every tool and model timeout of a
 * real deployment dead, with the whole suite green. Here a loop built with no
 * clock — the default a library user gets — runs a tool that never settles,
 * declared with a short timeout: the call must end TIMEOUT after about that
 * long, in real time, and the turn carry on.
 *
 * Beside it, the tool option `retryBackoffMs` on the system clock (`loopDeps({
 * toolOptions })`, `createToolExecutor`, both exported; the host's YAML sets it as
 * `tools.retryBackoffMs`, a scenario as `config.toolRetryBackoffMs`). A loop given
 * one must wait `retryBackoffMs · 2^(n-1)` on its clock before retry n of a NONE
 * tool, and never longer than a timer can hold.
 *
 * And a clock of the agent's own without the optional `setTimer` (only `now`
 * and `sleep`): an async tool's race then waits its timeout with `sleep`, and
 * must still settle both ways (`contract:clock/<id>`).
 *
 * And the tool executor used on its own (`createToolExecutor`, exported): its
 * context's `trace` is optional, and the loop always passes its turn span, so no
 * host reaches a call made without one: it must run the tool as any other
 * (`contract:tools/<id>`).
 */
import { z } from 'zod';
import { call, reply, toolUse } from '../../providers/fake/results.ts';
import { ScriptedModelClient } from '../../providers/fake/scripted.ts';
import {
  AgentLoop,
  createToolExecutor,
  defineTool,
  EventLog,
  loopDeps,
  MAX_TIMEOUT_MS,
  systemClock,
  ToolRegistry,
  type Agent,
  type Clock,
  type ModelClient,
  type TurnResult,
} from '../kernel/index.ts';
import type { CheckResult } from '../report/results.ts';
import { checksCase, type Case } from './cases.ts';

const TIMEOUT_MS = 40;
/** Real time the case waits for the turn before it calls the tool's timeout dead. */
const GIVE_UP_MS = 5_000;

/** The loop's drain, or `hung` when it has not settled after GIVE_UP_MS of real time (the case then shuts it down). */
async function drainOrGiveUp(loop: AgentLoop): Promise<Awaited<ReturnType<AgentLoop['drain']>> | 'hung'> {
  let guard: ReturnType<typeof setTimeout> | undefined;
  const hung = new Promise<'hung'>((resolve) => {
    guard = setTimeout(() => resolve('hung'), GIVE_UP_MS);
  });
  try {
    return await Promise.race([loop.drain(), hung]);
  } finally {
    clearTimeout(guard);
  }
}

async function hungToolTimesOutOnTheSystemClock(): Promise<CheckResult[]> {
  const log = new EventLog(systemClock);
  const agent: Agent = {
    tools: [
      defineTool({
        name: 'read_sensor',
        description: 'Read the sensor (its driver hangs).',
        input: z.object({ id: z.string() }),
        sideEffect: 'NONE',
        timeoutMs: TIMEOUT_MS,
        run: (_args, ctx) => {
          told = ctx.signal;
          return new Promise<never>(() => undefined);
        },
      }),
    ],
  };
  let told: AbortSignal | undefined;
  const model = new ScriptedModelClient([toolUse([call('read', 'read_sensor', { id: 's1' })]), reply('The sensor did not answer.')]);
  // No clock given: the loop runs on the system clock, as a deployed agent does.
  const loop = new AgentLoop(loopDeps({ log, model, agent }));
  loop.send('Read sensor s1.', { id: 'ask' });
  const started = Date.now();
  const settled = await drainOrGiveUp(loop);
  const took = Date.now() - started;
  const checks: CheckResult[] = [];
  if (settled === 'hung') {
    loop.shutdown('the case gave up');
    checks.push({
      name: "the tool's timeout fired",
      passed: false,
      message: `the turn was still running after ${GIVE_UP_MS} ms of real time: the system clock never fired the tool's ${TIMEOUT_MS} ms timeout`,
    });
    return checks;
  }
  const [result] = settled as TurnResult[];
  const kind = result?.outcome.kind;
  checks.push({ name: 'replied', passed: kind === 'replied', message: `outcome ${String(kind)}`, expected: 'replied', actual: String(kind) });
  const stored = log.events.find((e) => e.type === 'tool.result')?.payload as
    | { status?: string; output?: unknown; error?: { error_code?: string } }
    | undefined;
  const code = stored?.error?.error_code;
  checks.push({
    name: 'the call ended TIMEOUT',
    passed: code === 'TIMEOUT',
    message: stored ? `tool.result ${String(stored.status)} ${String(code)}` : 'no tool.result stored',
    expected: 'TIMEOUT',
    actual: String(code),
  });
  checks.push({
    name: 'after about its timeout',
    passed: took >= TIMEOUT_MS - 5,
    message: `the turn took ${took} ms for a ${TIMEOUT_MS} ms timeout`,
  });
  // The reason's name is how a tool tells a timeout from a cancel (the class is not exported): mutation seed 46 blanked
  // it, and every check passed (the invariants reading it skip a reason they do not know).
  const reason = told?.aborted ? String(told.reason) : 'the signal was not aborted';
  const want = `ToolTimeoutError: read_sensor timed out after ${TIMEOUT_MS} ms`;
  checks.push({ name: 'the body was told it timed out', passed: reason === want, message: reason, expected: want, actual: reason });
  return checks;
}

const BACKOFF_MS = 10;

/** A loop given `retryBackoffMs` runs a NONE tool that fails twice: the waits it asked of its clock, and how the call ended. */
async function retryWaits(backoffMs: number, sleep: Clock['sleep']): Promise<{ waits: number[]; checks: CheckResult[] }> {
  // The clock, with every wait the loop asks of it written down.
  const waits: number[] = [];
  const clock: Clock = {
    now: () => systemClock.now(),
    sleep: (ms, signal) => {
      waits.push(ms);
      return sleep(ms, signal);
    },
  };
  const log = new EventLog(clock);
  let runs = 0;
  const agent: Agent = {
    tools: [
      defineTool({
        name: 'read_sensor',
        description: 'Read the sensor (it fails twice, then answers).',
        input: z.object({ id: z.string() }),
        sideEffect: 'NONE',
        run: () => {
          runs++;
          if (runs < 3) throw new Error(`sensor busy (${runs})`);
          return { celsius: 21 };
        },
      }),
    ],
  };
  const model = new ScriptedModelClient([toolUse([call('read', 'read_sensor', { id: 's1' })]), reply('It is 21 °C.')]);
  const loop = new AgentLoop(loopDeps({ log, model, agent, clock, toolOptions: { retryBackoffMs: backoffMs } }));
  loop.send('Read sensor s1.', { id: 'ask' });
  const [result] = await loop.drain();
  const checks: CheckResult[] = [];
  const kind = result?.outcome.kind;
  checks.push({ name: 'replied', passed: kind === 'replied', message: `outcome ${String(kind)}`, expected: 'replied', actual: String(kind) });
  const stored = log.events.find((e) => e.type === 'tool.result')?.payload as { status?: string; attempts?: number } | undefined;
  checks.push({
    name: 'the call succeeded on its third attempt',
    passed: stored?.status === 'ok' && stored.attempts === 3,
    message: stored ? `tool.result ${String(stored.status)} after ${String(stored.attempts)} attempts` : 'no tool.result stored',
    expected: 'ok after 3 attempts',
    actual: stored ? `${String(stored.status)} after ${String(stored.attempts)} attempts` : 'none',
  });
  return { waits, checks };
}

function waitsCheck(name: string, waits: readonly number[], expected: readonly number[], backoffMs: number): CheckResult {
  return {
    name,
    passed: waits.length === expected.length && waits.every((ms, i) => ms === expected[i]),
    message: `the loop's waits on its clock: [${waits.join(', ')}] ms for retryBackoffMs ${backoffMs}`,
    expected: `[${expected.join(', ')}]`,
    actual: `[${waits.join(', ')}]`,
  };
}

async function toolRetryBackoffDoubles(): Promise<CheckResult[]> {
  const { waits, checks } = await retryWaits(BACKOFF_MS, (ms, signal) => systemClock.sleep(ms, signal));
  return [...checks, waitsCheck('retry n waited retryBackoffMs · 2^(n-1)', waits, [BACKOFF_MS, 2 * BACKOFF_MS], BACKOFF_MS)];
}

/**
 * A backoff at the timer's limit: doubled, retry 2 would ask for a wait no timer can hold, and a Node timer fires
 * such a delay at once — the retry would hammer the tool the backoff was set to spare. Every wait is held to the
 * limit. The clock here only writes the waits down (no real 24-day sleep).
 */
async function toolRetryBackoffHeldToTheTimerLimit(): Promise<CheckResult[]> {
  const { waits, checks } = await retryWaits(MAX_TIMEOUT_MS, () => Promise.resolve());
  return [...checks, waitsCheck("no wait past a timer's limit", waits, [MAX_TIMEOUT_MS, MAX_TIMEOUT_MS], MAX_TIMEOUT_MS)];
}

/**
 * A clock of the agent's own with no `setTimer` (it is optional: `Clock` needs
 * only `now` and `sleep`): a tool that answers asynchronously must still be
 * answered, and one that hangs must still end TIMEOUT, its timeout then waited
 * with `sleep`. Every host and scenario runs on a clock with timers, so only a
 * case built here reaches the race without one.
 */
async function asyncToolsOnAClockWithoutTimers(): Promise<CheckResult[]> {
  const clock: Clock = { now: () => systemClock.now(), sleep: (ms, signal) => systemClock.sleep(ms, signal) };
  const log = new EventLog(clock);
  const agent: Agent = {
    tools: [
      defineTool({
        name: 'read_sensor',
        description: 'Read the sensor (it answers asynchronously).',
        input: z.object({ id: z.string() }),
        sideEffect: 'NONE',
        run: async () => {
          await new Promise((resolve) => setTimeout(resolve, 1));
          return { celsius: 21 };
        },
      }),
      defineTool({
        name: 'read_gauge',
        description: 'Read the gauge (its driver hangs).',
        input: z.object({ id: z.string() }),
        sideEffect: 'NONE',
        timeoutMs: TIMEOUT_MS,
        run: () => new Promise<never>(() => undefined),
      }),
    ],
  };
  const model = new ScriptedModelClient([
    toolUse([call('sensor', 'read_sensor', { id: 's1' }), call('gauge', 'read_gauge', { id: 'g1' })]),
    reply('It is 21 °C; the gauge did not answer.'),
  ]);
  const loop = new AgentLoop(loopDeps({ log, model, agent, clock }));
  loop.send('Read sensor s1 and gauge g1.', { id: 'ask' });
  const settled = await drainOrGiveUp(loop);
  if (settled === 'hung') {
    loop.shutdown('the case gave up');
    const results = log.events.filter((e) => e.type === 'tool.result').length;
    return [
      {
        name: 'the turn ended',
        passed: false,
        message: `the turn was still running after ${GIVE_UP_MS} ms of real time, ${results} of 2 calls answered: a tool's race on a clock without setTimer never settled`,
      },
    ];
  }
  const [result] = settled as TurnResult[];
  const kind = result?.outcome.kind;
  const answers = log.events
    .filter((e) => e.type === 'tool.result')
    .map((e) => {
      const p = e.payload as { callId?: string; status?: string; error?: { error_code?: string } };
      return `${String(p.callId)} ${String(p.status)}${p.error?.error_code ? ` ${p.error.error_code}` : ''}`;
    })
    .sort();
  const expected = ['gauge unknown TIMEOUT', 'sensor ok'];
  return [
    { name: 'replied', passed: kind === 'replied', message: `outcome ${String(kind)}`, expected: 'replied', actual: String(kind) },
    {
      name: 'the async tool answered, the hung one ended TIMEOUT',
      passed: JSON.stringify(answers) === JSON.stringify(expected),
      message: `tool results: ${answers.join('; ') || 'none'}`,
      expected: expected.join('; '),
      actual: answers.join('; '),
    },
  ];
}

/**
 * The same clock without `setTimer`, under the loop's own backstop for a model
 * call (`modelTimeoutMs`): a client that hangs past the request's timeout must
 * still be cut there — the wait then taken with `sleep` — as a transport timeout,
 * and the call retried. Every host and scenario runs on a clock with timers (the
 * bundled `retries/hung-client-ignores-its-timeout`), so only a case built here
 * reaches the backstop that sleeps.
 */
async function hungModelCallTimesOutOnAClockWithoutTimers(): Promise<CheckResult[]> {
  const clock: Clock = { now: () => systemClock.now(), sleep: (ms, signal) => systemClock.sleep(ms, signal) };
  const log = new EventLog(clock);
  const answers = new ScriptedModelClient([reply('The sensor reads 21 °C.')]);
  let calls = 0;
  // A broken client: its first call never settles, whatever the timeout or the signal.
  const model: ModelClient = {
    name: 'hangs-once',
    call: (request, onDelta) => (++calls === 1 ? new Promise<never>(() => undefined) : answers.call(request, onDelta)),
  };
  const config = {
    modelTimeoutMs: TIMEOUT_MS,
    retry: {
      // One immediate retry, 1 ms after the timeout; no backoff tier.
      immediateRetries: 1,
      immediateDelayMs: 1,
      backoffRetries: 0,
      backoffBaseMs: 1,
      backoffMaxMs: 1,
      jitter: 0,
      maxRetryAfterMs: 1_000,
    },
  };
  const loop = new AgentLoop(loopDeps({ log, model, clock, config }));
  loop.send('Read sensor s1.', { id: 'ask' });
  const settled = await drainOrGiveUp(loop);
  if (settled === 'hung') {
    loop.shutdown('the case gave up');
    return [
      {
        name: 'the turn ended',
        passed: false,
        message: `the turn was still running after ${GIVE_UP_MS} ms of real time, ${calls} model call(s) made: the loop's ${TIMEOUT_MS} ms backstop on a clock without setTimer never cut the hung call`,
      },
    ];
  }
  const [result] = settled as TurnResult[];
  const kind = result?.outcome.kind;
  const results = log.events
    .filter((e) => e.type === 'model.result')
    .map((e) => {
      const r = (e.payload as { result?: { type?: string; kind?: string; message?: string } }).result;
      return `${String(r?.type)}${r?.kind ? ` ${r.kind}` : ''}${r?.message ? `: ${r.message}` : ''}`;
    });
  const expected = [`transport_error timeout: no result within ${TIMEOUT_MS} ms`, 'reply'];
  return [
    { name: 'replied', passed: kind === 'replied', message: `outcome ${String(kind)}`, expected: 'replied', actual: String(kind) },
    {
      name: 'the hung call ended as a timeout, the retry answered',
      passed: JSON.stringify(results) === JSON.stringify(expected),
      message: `model results: ${results.join('; ') || 'none'}`,
      expected: expected.join('; '),
      actual: results.join('; '),
    },
    { name: 'two model calls', passed: calls === 2, message: `${calls} model call(s)`, expected: '2', actual: String(calls) },
  ];
}

/**
 * The same clock without `setTimer`, a turn cancelled while its model call hangs
 * (a client that ignores the abort signal): the loop waits for the client's own
 * answer one clock turn (`answerAfterAbort`, the wait then taken with `sleep(0)`)
 * and must then end the turn cancelled. Every host and scenario runs on a clock
 * with timers, so only a case built here reaches the wait that sleeps.
 */
async function hungModelCallCancelledOnAClockWithoutTimers(): Promise<CheckResult[]> {
  const clock: Clock = { now: () => systemClock.now(), sleep: (ms, signal) => systemClock.sleep(ms, signal) };
  const log = new EventLog(clock);
  let calls = 0;
  let loop: AgentLoop | undefined;
  // A broken client: its call never settles, whatever the signal; the user cancels once it is asked.
  const model: ModelClient = {
    name: 'hangs',
    call: () => {
      calls++;
      setTimeout(() => loop?.cancel('user'), 1);
      return new Promise<never>(() => undefined);
    },
  };
  loop = new AgentLoop(loopDeps({ log, model, clock }));
  loop.send('Read sensor s1.', { id: 'ask' });
  const settled = await drainOrGiveUp(loop);
  if (settled === 'hung') {
    loop.shutdown('the case gave up');
    return [
      {
        name: 'the turn ended',
        passed: false,
        message: `the turn was still running after ${GIVE_UP_MS} ms of real time, cancelled while its model call hung: the wait for the client's answer on a clock without setTimer never ended`,
      },
    ];
  }
  const [result] = settled as TurnResult[];
  const outcome = result?.outcome;
  const said = outcome?.kind === 'cancelled' ? `cancelled by ${String(outcome.by)}` : String(outcome?.kind);
  return [
    { name: 'cancelled by the user', passed: said === 'cancelled by user', message: `outcome ${said}`, expected: 'cancelled by user', actual: said },
    { name: 'one model call', passed: calls === 1, message: `${calls} model call(s)`, expected: '1', actual: String(calls) },
  ];
}

async function executorWithoutATraceRunsTheCall(): Promise<CheckResult[]> {
  let given: string | undefined = 'not run';
  const tools = createToolExecutor({
    registry: new ToolRegistry([
      defineTool({
        name: 'read_sensor',
        description: 'Read the sensor.',
        input: z.object({ id: z.string() }),
        sideEffect: 'NONE',
        run: (_args, ctx) => {
          given = ctx.traceparent;
          return { celsius: 21 };
        },
      }),
    ]),
  });
  const recorder = { policy: () => undefined, started: () => undefined, settled: () => undefined, alreadyStarted: () => false };
  // No `trace`: a library user running the executor outside the loop, untraced.
  const settled = await tools.execute(
    { id: 'read', name: 'read_sensor', args: { id: 's1' } },
    { signal: new AbortController().signal, clock: systemClock, recorder },
  );
  const code = settled.error?.error_code;
  return [
    {
      name: 'the call ran and succeeded',
      passed: settled.status === 'ok',
      message: `${settled.status}${code ? ` ${code}: ${settled.error?.error_message ?? ''}` : ''}`,
      expected: 'ok',
      actual: String(settled.status),
    },
    { name: 'the tool got no traceparent', passed: given === undefined, message: `traceparent ${String(given)}`, expected: 'undefined', actual: String(given) },
  ];
}

/**
 * `systemClock.setTimer` (exported: a team's own code and clocks built on it use
 * it, and every tool call of a deployed agent races its timeout on it): a timer
 * cancelled before its time must never fire — a tool that answered in time
 * must not be timed out after — and timers of other delays must each fire once,
 * the later one too after the earlier has fired and left its lane. Checked in
 * real time (tens of ms); only which timers fired is judged, not their order.
 */
async function systemTimersFireOnceUnlessCancelled(): Promise<CheckResult[]> {
  const setTimer = systemClock.setTimer!;
  const fired: string[] = [];
  const set = (name: string, ms: number) => setTimer(ms, () => fired.push(name));
  set('soon', 5);
  const cancelled = set('cancelled', 15);
  set('later', 30);
  set('same delay, set after', 15);
  cancelled.cancel();
  cancelled.cancel(); // twice: still nothing
  const deadline = Date.now() + GIVE_UP_MS;
  while (fired.length < 3 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
  await new Promise((resolve) => setTimeout(resolve, 40)); // past every deadline: a cancelled timer would have fired by now
  const got = [...fired].sort();
  const expected = ['later', 'same delay, set after', 'soon'];
  return [
    {
      name: 'each timer not cancelled fired once, the cancelled one never',
      passed: JSON.stringify(got) === JSON.stringify(expected),
      message: `fired: ${got.join(', ') || 'none'}`,
      expected: expected.join(', '),
      actual: got.join(', '),
    },
  ];
}

export function systemClockCases(): Case[] {
  return [
    checksCase(
      {
        id: 'contract:clock/system-clock-times-out-a-hung-tool',
        title: 'clock: on the default system clock, a tool that never settles ends TIMEOUT after its declared timeout',
        file: 'src/harness/system-clock-cases.ts',
      },
      hungToolTimesOutOnTheSystemClock,
    ),
    checksCase(
      {
        id: 'contract:clock/tool-retry-backoff-doubles',
        title: 'clock: a loop given toolOptions.retryBackoffMs waits it, then twice it, before retries 1 and 2 of a NONE tool',
        file: 'src/harness/system-clock-cases.ts',
      },
      toolRetryBackoffDoubles,
    ),
    checksCase(
      {
        id: 'contract:clock/tool-retry-backoff-held-to-the-timer-limit',
        title: "clock: a tool retry backoff that doubles past a timer's limit waits the limit, never fires at once",
        file: 'src/harness/system-clock-cases.ts',
      },
      toolRetryBackoffHeldToTheTimerLimit,
    ),
    checksCase(
      {
        id: 'contract:clock/async-tools-on-a-clock-without-timers',
        title: "clock: on the agent's clock without setTimer, an async tool is answered and a hung one ends TIMEOUT",
        file: 'src/harness/system-clock-cases.ts',
      },
      asyncToolsOnAClockWithoutTimers,
    ),
    checksCase(
      {
        id: 'contract:clock/hung-model-call-cut-on-a-clock-without-timers',
        title: "clock: on the agent's clock without setTimer, the loop's modelTimeoutMs backstop cuts a hung model call as a timeout",
        file: 'src/harness/system-clock-cases.ts',
      },
      hungModelCallTimesOutOnAClockWithoutTimers,
    ),
    checksCase(
      {
        id: 'contract:clock/hung-model-call-cancelled-on-a-clock-without-timers',
        title: "clock: on the agent's clock without setTimer, a turn cancelled while its model call hangs (the client ignores the signal) ends cancelled",
        file: 'src/harness/system-clock-cases.ts',
      },
      hungModelCallCancelledOnAClockWithoutTimers,
    ),
    checksCase(
      {
        id: 'contract:tools/executor-without-a-trace-runs-the-call',
        title: 'tools: the tool executor given a context without a trace runs the call as any other (no traceparent)',
        file: 'src/harness/system-clock-cases.ts',
      },
      executorWithoutATraceRunsTheCall,
    ),
    checksCase(
      {
        id: 'contract:clock/system-timers-fire-once-unless-cancelled',
        title: 'clock: on the system clock, a timer cancelled in time never fires, and timers of other delays each fire once',
        file: 'src/harness/system-clock-cases.ts',
      },
      systemTimersFireOnceUnlessCancelled,
    ),
  ];
}
