/**
 * Runs one contract case against one client and checks what every case checks:
 * the call resolves (never rejects) within its deadline and a little more,
 * the result has the contract's shape, and
 * no delta arrives after it settled, nothing is written to the console, and (where the harness can tell) at most
 * one request went out. Then the case's own check. Throws an
 * AssertionError on failure; framework-free, so the CLI can use it too.
 */
import assert from 'node:assert/strict';
import type { ModelDelta, ModelRequest, ModelResult } from '../../src/kernel/index.ts';
import { describeError } from '../shared/call-runner.ts';
import { watchConsole } from './console-watch.ts';
import type { ContractCase } from './cases.ts';
import { BASE_REQUEST } from './cases.ts';
import type { HarnessClient } from './harness.ts';
import { credentialLeak, sentCredentialLeak, withoutCredentials } from './credential-check.ts';
import { resultProblems } from './result-schema.ts';

/** How long past its deadline a call may take to settle before its case fails. */
const SETTLE_SLACK_MS = 5_000;

/** The call's deadline in a case: its request's, else the adapter options' default, else the base request's. */
function deadlineOf(testCase: ContractCase, request: ModelRequest): number {
  return request.timeoutMs ?? testCase.adapter?.defaultTimeoutMs ?? BASE_REQUEST.timeoutMs!;
}

/**
 * Time enough for a case to reach its own verdict: its call's deadline, the slack past it, and as long again for
 * building the client and the checks after. A test runner's limit below this cuts the case off before the suite
 * can say what went wrong (vitest's default is 5 s; the slack alone is 5 s).
 */
export function caseTimeLimitMs(testCase: ContractCase): number {
  const request = testCase.request ? testCase.request(BASE_REQUEST) : BASE_REQUEST;
  return deadlineOf(testCase, request) + 2 * SETTLE_SLACK_MS;
}

export async function runContractCase(testCase: ContractCase, harnessClient: HarnessClient): Promise<ModelResult> {
  const { client, requestCount, requestsAborted, sent: sentBy, secrets = [] } = harnessClient;
  const controller = new AbortController();
  let request: ModelRequest = testCase.request ? testCase.request(BASE_REQUEST) : BASE_REQUEST;
  if (testCase.drive === 'abort_before_call') controller.abort();
  if (testCase.drive === 'abort_before_call' || testCase.drive === 'abort_on_first_delta') request = { ...request, signal: controller.signal };

  const deltas: ModelDelta[] = [];
  let settled = false;
  let late = 0;
  const onDelta = (delta: ModelDelta) => {
    if (settled) late++;
    else deltas.push(delta);
    if (testCase.drive === 'abort_on_first_delta' && deltas.length === 1) controller.abort();
    if (testCase.drive === 'throwing_listener') throw new Error('listener failure (thrown on purpose by the contract suite)');
  };

  // A client that never settles fails its case (a real timer: the suite's clock is the wall's), not the whole run.
  const deadline = deadlineOf(testCase, request);
  let guard: ReturnType<typeof setTimeout> | undefined;
  const never = new Promise<'never'>((resolve) => {
    guard = setTimeout(() => resolve('never'), deadline + SETTLE_SLACK_MS);
  });
  let result: ModelResult;
  const consoleWatch = watchConsole();
  let answered = false;
  try {
    const settledFirst = await Promise.race([consoleWatch.run(() => client.call(request, onDelta)), never]);
    if (settledFirst === 'never') assert.fail(`the client had not settled ${deadline + SETTLE_SLACK_MS} ms into a call whose deadline is ${deadline} ms`);
    result = settledFirst;
    answered = true;
  } catch (error) {
    if (error instanceof assert.AssertionError) throw error;
    assert.fail(`the client rejected instead of settling with a result: ${withoutCredentials(describeError(error), secrets)}`);
  } finally {
    clearTimeout(guard);
    if (!answered) consoleWatch.stop();
  }
  settled = true;
  // Let anything still in flight run, then make sure nothing reached the listener.
  try {
    await new Promise((resolve) => setTimeout(resolve, 20));
  } finally {
    consoleWatch.stop();
  }
  assert.equal(late, 0, `${late} delta(s) arrived after the call settled`);
  // A library writes nothing to its user's console: the SDKs' own logging stays off (a raw chunk it logs may carry a key).
  assert.deepEqual(
    consoleWatch.written.map((line) => withoutCredentials(line, secrets)),
    [],
    'the client wrote to the console during the call',
  );
  // First, so that no later message quotes a result that carries the key.
  const leak = credentialLeak(result, deltas, secrets) ?? sentCredentialLeak(harnessClient.received?.() ?? [], secrets);
  if (leak !== undefined) assert.fail(leak);

  const problems = resultProblems(result);
  assert.deepEqual(problems, [], `the result does not have the contract's shape: ${JSON.stringify(result)}`);
  // One call, at most one request: retrying is the loop's decision (its tiers, retry-after, fallback), never the SDK's on its own.
  const sent = requestCount?.();
  if (sent !== undefined) assert.ok(sent <= 1, `one call sent ${sent} requests: the client retried on its own`);
  const aborted = requestsAborted?.();
  const said = sentBy?.(request);
  testCase.check({
    result,
    deltas,
    streams: harnessClient.streams ?? true,
    secrets,
    ...(sent !== undefined ? { requestCount: sent } : {}),
    ...(aborted !== undefined ? { requestsAborted: aborted } : {}),
    ...(said !== undefined ? { sent: said } : {}),
    ...(harnessClient.pieces ? { pieces: harnessClient.pieces } : {}),
  });
  return result;
}
