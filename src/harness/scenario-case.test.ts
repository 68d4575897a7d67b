import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { loadScenarios } from './scenario/load.ts';
import { scenarioCase } from './scenario-case.ts';
import { runCases } from './runner.ts';
import { bundledContext } from '../../test/support/bundled.ts';

const root = join(import.meta.dirname, '../../scenarios/bundled');

describe('scenario cases', () => {
  it('runs the sample scenarios and they pass three ways plus the invariants', async () => {
    const loaded = loadScenarios([join(root, 'refunds/approved-refund-runs-once.yaml'), join(root, 'loop')], root);
    const context = await bundledContext();
    for (const l of loaded) {
      const outcome = await scenarioCase(l, context).run({ seed: 1 });
      const failing = outcome.checks.filter((c) => !c.passed);
      expect(failing, `${l.id}: ${JSON.stringify(failing, null, 2)}`).toEqual([]);
      expect(outcome.status).toBe('passed');
    }
  });
});

describe('inbox triggers that never fire', () => {
  const scenario = (inbox: string) =>
    [
      'name: a trigger',
      ...(inbox.includes('disconnect') ? ['host: production'] : []),
      'provider:',
      '  script:',
      '    - tool_use: [{ id: l1, name: lookup_order, args: { order_id: ORD-1001 } }]',
      '    - reply: It was delivered.',
      'inbox:',
      '  - say: Where is ORD-1001?',
      inbox,
      'expect:',
      '  outcome: replied',
      '',
    ].join('\n');
  const outcome = async (inbox: string) => {
    const file = join(mkdtempSync(join(tmpdir(), 'loopgate-trigger-')), 'case.yaml');
    writeFileSync(file, scenario(inbox));
    const [loaded] = loadScenarios([file], dirname(file));
    return scenarioCase(loaded!, await bundledContext(), 'production').run({ seed: 1 });
  };

  it('fail the case, naming the entry and its trigger', async () => {
    const late = await outcome('  - cancel: user\n    at: { request: 99 }');
    expect(late.status).toBe('failed');
    expect(late.checks.filter((c) => !c.passed)).toEqual([
      { name: 'triggers', passed: false, message: 'inbox[1]: cancel at {request: 99} never happened (the case ended first; ifReached: true if it may not)' },
    ]);
  });

  it('toolRecorded fires as a start record of the tool is appended, and names itself when it never is', async () => {
    // lookup_order's call is recorded (every call's start is): a steer there joins the turn; issue_refund is never called.
    const heard = await outcome('  - steer: And the refund?\n    at: { toolRecorded: lookup_order }');
    expect(heard.checks.filter((c) => !c.passed).map((c) => c.message)).toEqual([]);
    const never = await outcome('  - cancel: user\n    at: { toolRecorded: issue_refund }');
    expect(never.checks.filter((c) => !c.passed).map((c) => c.message)).toEqual([
      'inbox[1]: cancel at {toolRecorded: issue_refund} never happened (the case ended first; ifReached: true if it may not)',
    ]);
  });

  it('a crash that never happens fails the case, and its reopen is not performed (no error from the host)', async () => {
    const crash = await outcome('  - crash: true\n    at: { toolStart: issue_refund }\n  - reopen: true');
    expect(crash.checks.filter((c) => !c.passed).map((c) => c.message)).toEqual([
      'inbox[1]: crash at {toolStart: issue_refund} never happened (the case ended first; ifReached: true if it may not); inbox[2]: reopen never happened (what it follows never did)',
    ]);
  });

  it('a crash that may not fire (ifReached) and never does: its reopen is not performed, and the case passes', async () => {
    // Outside probe 38, F7: the reopen after it failed the case, though its crash was marked as one that may not happen.
    const crash = await outcome('  - crash: true\n    at: { event: 999, ifReached: true }\n  - reopen: true');
    expect(crash.checks.filter((c) => !c.passed).map((c) => c.message)).toEqual([]);
  });

  it('a crash that fired is reopened though a later crash still waits; the later one, never firing, names its own reopen', async () => {
    // Outside probe 38, F7: the first reopen was skipped (a crash was still waiting), the later crash withdrawn, and the
    // failure named inbox[3] — the reopen that did run — instead of the one after the crash that never fired.
    const crash = await outcome(
      '  - crash: true\n    at: { toolStart: lookup_order }\n  - reopen: true\n  - crash: true\n    at: { event: 999 }\n  - reopen: true\n  - say: Anything else?',
    );
    expect(crash.checks.filter((c) => !c.passed).map((c) => c.message)).toEqual([
      'inbox[3]: crash at {event: 999} never happened (the case ended first; ifReached: true if it may not); inbox[4]: reopen never happened (what it follows never did)',
    ]);
    expect(crash.timeline?.filter((t) => t.label.includes('reopens')).length).toBe(1);
  });

  it('a crash at an event the new process writes lands in its recovery sweep; the next process finishes it', async () => {
    // Outside probe 38, F2: the second crash fired on what the dead process still appended in memory, found the process
    // down, and the second reopen's refusal by the host ("reopen: the host has not crashed") was reported as the loop's
    // invariant 12, with a stack. Now the dead process's appends trigger nothing, and a crash while a process starts
    // takes it down mid-sweep.
    const file = join(mkdtempSync(join(tmpdir(), 'loopgate-trigger-')), 'case.yaml');
    writeFileSync(
      file,
      [
        'name: a second crash while the first one holds the process down',
        'host: production',
        'provider:',
        '  script:',
        '    - tool_use: [{ id: r1, name: issue_refund, args: { order_id: ORD-1001, amount: 120, reason: damaged } }]',
        '    - reply: It may have gone through.',
        'inbox:',
        '  - say: Refund ORD-1001.',
        '  - crash: true',
        '    at: { toolStart: issue_refund }',
        '  - reopen: true',
        '  - crash: true',
        '    at: { event: 12 }',
        '  - reopen: true',
        '  - say: Did it go through?',
        'expect:',
        '  executions: { issue_refund: 1 }',
        '',
      ].join('\n'),
    );
    const [loaded] = loadScenarios([file], dirname(file));
    const got = await scenarioCase(loaded!, await bundledContext(), 'production').run({ seed: 1 });
    expect(got.checks.filter((c) => !c.passed).map((c) => c.message)).toEqual([]);
    // Two crashes and two reopens before the sweep that closed turn 0 as interrupted.
    const faults = (got.timeline ?? []).filter((t) => t.kind === 'fault' || t.kind === 'outcome').map((t) => t.label);
    expect(faults.slice(0, 5)).toEqual([
      'the process crashes',
      'a new host reopens the store',
      'the process crashes',
      'a new host reopens the store',
      'turn 0: interrupted',
    ]);
  });

  it('a disconnect of a message its trigger has not posted yet fails the case, naming it (no error from the host)', async () => {
    // The schema counts messages in inbox order; the steer is posted only if request 9 is ever sent (it is not).
    const early = await outcome('  - steer: Only the first one.\n    at: { request: 9, ifReached: true }\n  - disconnect: 2');
    expect(early.status).toBe('failed');
    expect(early.checks.filter((c) => !c.passed).map((c) => c.message)).toEqual([
      'inbox[2]: disconnect 2 never happened (message 2 was not posted yet: a message with a trigger is posted when it fires)',
    ]);
  });

  it('an undoCompaction with no compaction in force fails the case, naming it; the rest of the inbox is performed', async () => {
    // The overflow's compaction does not shrink the conversation, so none is in force when the operator undoes (probe 6, finding 8).
    const file = join(mkdtempSync(join(tmpdir(), 'loopgate-undo-')), 'case.yaml');
    writeFileSync(
      file,
      [
        'name: an undo with nothing to undo',
        'host: loop',
        'compaction:',
        '  - summary: "Looked up an order."',
        'provider:',
        '  script:',
        '    - reply: one',
        '    - reply: two',
        '    - overflow: request',
        '    - reply: three',
        'inbox:',
        '  - say: first',
        '  - say: second',
        '  - say: third',
        '  - undoCompaction: true',
        '  - say: fourth',
        'expect:',
        '  outcomes: [replied, replied, conversation_full, replied]',
        '',
      ].join('\n'),
    );
    const [loaded] = loadScenarios([file], dirname(file));
    const undo = await scenarioCase(loaded!, await bundledContext()).run({ seed: 1 });
    expect(undo.status).toBe('failed');
    expect(undo.checks.filter((c) => !c.passed)).toEqual([
      {
        name: 'triggers',
        passed: false,
        message: 'inbox[3]: undoCompaction found no compaction in force, so it undid nothing (did the compaction before it shrink the conversation?)',
      },
    ]);
  });

  it('pass with ifReached: true', async () => {
    const maybe = await outcome('  - cancel: user\n    at: { request: 99, ifReached: true }');
    expect(maybe.checks.filter((c) => !c.passed)).toEqual([]);
  });
});

describe('store.corruptSnapshotOnCrash', () => {
  it('a case whose crash comes before any snapshot was stored tests nothing, and fails saying so', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'loopgate-snapshot-')), 'case.yaml');
    writeFileSync(
      file,
      [
        'name: a snapshot never stored',
        'store: { corruptSnapshotOnCrash: true }',
        'provider:',
        '  script:',
        '    - { reply: never answered, latencyMs: 10000 }',
        '    - reply: Here again.',
        'inbox:',
        '  - say: Where is ORD-1001?',
        '  - crash: true',
        '    at: { request: 1 }',
        '  - reopen: true',
        '  - say: Hello?',
        'expect:',
        '  outcome: replied',
        '',
      ].join('\n'),
    );
    const [loaded] = loadScenarios([file], dirname(file));
    const outcome = await scenarioCase(loaded!, await bundledContext(), 'production').run({ seed: 1 });
    expect(outcome.status).toBe('failed');
    expect(outcome.checks.filter((c) => !c.passed).map((c) => c.name)).toContain('store');
    expect(outcome.checks.find((c) => c.name === 'store')?.message).toMatch(/no snapshot was read back garbled/);
  });
});

describe('secrets a reopened host gains (secretsOnReopen)', () => {
  it('are redacted from the case result, as the secrets known before it ran', async () => {
    const file = join(root, 'crash/secrets-as-argument-keys-never-shown-to-followers.yaml');
    const [loaded] = loadScenarios([file], root);
    const context = await bundledContext();
    const gained = loaded!.scenario.secretsOnReopen![0]!;
    const c = scenarioCase(loaded!, context, 'production');
    const [result] = await runCases([c], { seed: 1, concurrency: 1 });
    expect(result!.status).toBe('passed');
    // The inbox says it and the history holds it as plain text (stored before it was a secret): no report may.
    expect(JSON.stringify(result)).not.toContain(gained);
    expect(JSON.stringify(result)).toContain('[REDACTED]');
  });
});
