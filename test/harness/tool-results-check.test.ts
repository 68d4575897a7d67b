/**
 * A `toolResults` expectation that fails shows the results as they are: each
 * with its call, tool and status, and every field the expectation asks about
 * anywhere — not read through the keys of the expected entry at the same index
 * (outside probe 16, F4: a result out of place lost its TIMEOUT code, and extra
 * results showed as `{"status":"ok"}` with no call to tell them apart).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadScenarioFile } from '../../src/harness/scenario/load.ts';
import { runScenario } from '../../src/harness/second-host.ts';
import { BUNDLED_ROOT, bundledContext } from '../support/bundled.ts';
import { checkExpectations } from '../../src/harness/checks/expectations.ts';

describe('a failing toolResults check', () => {
  it('shows each result whole: call, tool, status and the code asked about elsewhere', async () => {
    const { scenario } = loadScenarioFile(join(BUNDLED_ROOT, 'field-failures/interrupt-mid-batch-every-call-answered.yaml'), BUNDLED_ROOT);
    const run = await runScenario(scenario, { seed: 1, agents: (await bundledContext()).registry });
    // The log holds a ok, b ok, c unknown/INTERRUPTED, d failed/NOT_RUN: expect c's place wrongly, and one result fewer.
    const [check] = checkExpectations(run, {
      toolResults: [{ call: 'a', status: 'ok' }, { call: 'c', status: 'unknown', code: 'INTERRUPTED' }, { status: 'ok' }],
    });
    expect(check?.passed).toBe(false);
    expect(check?.actual).toEqual([
      { call: 'a', tool: 'lookup_order', status: 'ok', code: null },
      { call: 'b', tool: 'lookup_order', status: 'ok', code: null },
      { call: 'c', tool: 'issue_refund', status: 'unknown', code: 'INTERRUPTED' },
      { call: 'd', tool: 'notify_customer', status: 'failed', code: 'NOT_RUN' },
    ]);
    expect(check?.message).toContain('"call":"d","tool":"notify_customer","status":"failed","code":"NOT_RUN"');
  });

  it('passes as before when the results match what is asked', async () => {
    const { scenario } = loadScenarioFile(join(BUNDLED_ROOT, 'field-failures/interrupt-mid-batch-every-call-answered.yaml'), BUNDLED_ROOT);
    const run = await runScenario(scenario, { seed: 1, agents: (await bundledContext()).registry });
    const [check] = checkExpectations(run, {
      toolResults: [
        { call: 'a', status: 'ok' },
        { status: 'ok' },
        { call: 'c', status: 'unknown', code: 'INTERRUPTED' },
        { tool: 'notify_customer', status: 'failed' },
      ],
    });
    expect(check?.passed, check?.message).toBe(true);
  });
});
