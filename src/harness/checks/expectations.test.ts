/**
 * A failed `policy` expectation shows what happened in full: the got list names `by` (and `rule`) on every decision
 * once any expected entry asks for it (outside probe 55, LOW-1: a decision beyond the ones expected showed without
 * its `by`, reading as if the approver had been bypassed).
 */
import { describe, expect, it } from 'vitest';
import { parseScenario } from '../scenario/load.ts';
import { runScenario } from '../second-host.ts';
import { checkExpectations } from './expectations.ts';

const SCENARIO = `
name: a refund approved after a lookup
tools:
  - { name: lookup_order, description: Look an order up., input: { order_id: string }, behaviour: [{ return: found }] }
  - { name: issue_refund, description: Refund an order., input: { order_id: string }, sideEffect: CRITICAL, behaviour: [{ return: refunded }] }
policy:
  rules:
    - { id: refunds-need-approval, tools: [issue_refund], decision: ask }
approver:
  answers: [approve]
provider:
  script:
    - tool_use: [{ id: look, name: lookup_order, args: { order_id: ORD-1001 } }]
    - tool_use: [{ id: refund, name: issue_refund, args: { order_id: ORD-1001 } }]
    - reply: Refunded.
inbox:
  - say: Refund 50 on ORD-1001.
expect:
  policy:
    - { tool: issue_refund, decision: allow, by: approver }
`;

describe('the policy expectation', () => {
  it('names by on every decision it got, once an expected entry asks for by', async () => {
    const scenario = parseScenario(SCENARIO, 'policy.yaml');
    const run = await runScenario(scenario, { seed: 1 });
    const check = checkExpectations(run, scenario.expect).find((c) => c.name === 'policy')!;
    expect(check.passed).toBe(false);
    expect(check.message).toBe(
      'expected [{"tool":"issue_refund","decision":"allow","by":"approver"}], got [{"tool":"lookup_order","decision":"allow","by":"default"},{"tool":"issue_refund","decision":"allow","by":"approver"}]',
    );
  });
});

const NOT_SHRUNK = `
name: compaction that does not shrink
compaction:
  - summary: The user asked about raft earlier, and was told what it is.
provider:
  script:
    - reply: Raft is a consensus algorithm.
    - overflow: request
    - reply: Emailed.
inbox:
  - say: What is raft?
  - say: Email Ada a summary of raft.
expect:
  outcomes: [replied, replied]
`;

describe('a failed outcome check', () => {
  // Outside probe 56, LOW: the reason was only in the report's timeline.
  it("says why each differing turn ended so, in the loop's words", async () => {
    const scenario = parseScenario(NOT_SHRUNK, 'not-shrunk.yaml');
    const run = await runScenario(scenario, { seed: 1 });
    const check = checkExpectations(run, scenario.expect).find((c) => c.name === 'outcomes')!;
    expect(check.passed).toBe(false);
    expect(check.message).toMatch(
      /^expected \["replied","replied"\], got \["replied","conversation_full"\]; turn 1 ended conversation_full: compaction did not shrink the projection: the summary is not smaller \(\d+ ≥ \d+ tokens\)$/,
    );
  });

  it('says nothing more when it passes', async () => {
    const scenario = parseScenario(NOT_SHRUNK.replace('outcomes: [replied, replied]', 'outcomes: [replied, conversation_full]'), 'not-shrunk.yaml');
    const run = await runScenario(scenario, { seed: 1 });
    const check = checkExpectations(run, scenario.expect).find((c) => c.name === 'outcomes')!;
    expect(check).toMatchObject({ passed: true, message: 'is ["replied","conversation_full"]' });
  });
});

const LATE_INJECT = `
name: an inject posted after the turn closed
provider:
  script:
    - reply: ORD-1001 has shipped.
inbox:
  - say: Where is ORD-1001?
  - { inject: "The customer is a VIP.", at: { time: 9000 } }
expect:
  lastRequest:
    contains: [VIP]
`;

describe('the lastRequest expectation', () => {
  it('says when an inject it looks for waits in the inbox, posted after the last request (outside probe 62)', async () => {
    const scenario = parseScenario(LATE_INJECT, 'late-inject.yaml');
    const run = await runScenario(scenario, { seed: 1 });
    const check = checkExpectations(run, scenario.expect).find((c) => c.name === 'last request' && !c.passed)!;
    expect(check.message).toBe(
      'no line contains "VIP"; an inject received after the last request ("The customer is a VIP.") waits in the inbox: an inject never wakes the loop, the next message takes it',
    );
  });
});

/** Outside probe 64, F11: store faults at appends the case never made passed: the case tested nothing it said. */
describe('store faults the case never reached', () => {
  it('fail the case, naming the append and how many there were', async () => {
    const scenario = parseScenario(
      'name: a far fault\nstore: { failAppends: [999999], slowAppends: [{ append: 500000, ms: 10 }] }\nprovider:\n  script:\n    - reply: Hi.\ninbox:\n  - say: Hello\nexpect: { outcome: replied }\n',
      'far-fault.yaml',
    );
    const run = await runScenario(scenario, { seed: 1 });
    const check = checkExpectations(run, scenario.expect).find((c) => c.name === 'store' && !c.passed);
    expect(check?.message).toBe(
      `store.failAppends: append 999999 never happened; store.slowAppends: append 500000 never happened (the case made ${run.storeWrites.attempts} appends): the case tests nothing there`,
    );
  });
});
