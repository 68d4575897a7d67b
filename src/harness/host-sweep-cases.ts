/**
 * The recovery sweep of a host that starts while another host serves the same
 * store (`recoverAll`, run at start: a rolling deploy, a second replica): the
 * conversations whose lock another host holds are live, not crashed. The sweep
 * must count them busy and write nothing to them; the live turn goes on and
 * closes as it would have.
 *
 * No scenario starts a host beside a live one (a scenario's hosts share a store
 * but start together, and a crash stops them all), so a sweep that recovered a
 * conversation whose lock it gave up waiting for — closing the other host's live
 * turn `interrupted`, its STATEFUL call `unknown` while it ran — passed the gate
 * (outside probe 56, plant sweep-busy-recovered: every rolling deploy would cut
 * the turns running on the other hosts, which then answered 503).
 */
import { z } from 'zod';
import { call, reply, toolUse } from '../../providers/fake/results.ts';
import { ScriptedModelClient } from '../../providers/fake/scripted.ts';
import { defaultHostConfig } from '../host/config.ts';
import type { RecoverySweep } from '../host/host.ts';
import { AgentHost } from '../host/host.ts';
import { defineTool, type Agent } from '../kernel/index.ts';
import type { CheckResult } from '../report/results.ts';
import { MemoryEventStore } from '../stores/memory-store.ts';
import { checksCase, type Case } from './cases.ts';

const FILE = 'src/harness/host-sweep-cases.ts';
const CONVERSATION = 'notes-7';

async function sweepBesideALiveTurn(): Promise<CheckResult[]> {
  const store = new MemoryEventStore();
  let runs = 0;
  let started!: () => void;
  const running = new Promise<void>((resolve) => (started = resolve));
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  const agent: Agent = {
    system: 'You keep the customer’s notes.',
    tools: [
      defineTool({
        name: 'save_note',
        description: 'Saves a note for the customer.',
        input: z.object({ text: z.string() }),
        sideEffect: 'STATEFUL',
        run: async () => {
          runs++;
          started();
          await finished;
          return 'saved';
        },
      }),
    ],
  };
  const live = new AgentHost({
    config: defaultHostConfig(),
    store,
    model: new ScriptedModelClient([toolUse([call('n1', 'save_note', { text: 'call back on Monday' })]), reply('Saved your note.')]),
    agent,
  });
  const starting = new AgentHost({ config: defaultHostConfig(), store, model: new ScriptedModelClient([]), agent });
  try {
    const answer = live.handle(CONVERSATION, 'Please note: call back on Monday.');
    // The live host's turn runs save_note, holding the conversation's lock (or it ended first: nothing to sweep beside).
    const first = await Promise.race([running.then(() => undefined), answer]);
    if (first !== undefined)
      return [
        {
          name: 'the live host’s turn runs its STATEFUL call',
          passed: false,
          message: `the turn ended before save_note ran: ${first.status} ${first.error ?? first.reply ?? ''}`,
        },
      ];
    const before = store.count(CONVERSATION);
    let sweep: RecoverySweep | undefined;
    let sweepError: string | undefined;
    try {
      sweep = await starting.recoverAll({ lockWaitMs: 20 });
    } catch (error) {
      sweepError = error instanceof Error ? error.message : String(error);
    }
    const afterSweep = store.count(CONVERSATION);
    finish();
    const got = await answer;
    const closes = (await store.read(CONVERSATION))
      .filter((r) => r.type === 'turn.closed')
      .map((r) => (r.payload as { outcome: { kind: string } }).outcome.kind);
    const shown = sweep
      ? JSON.stringify({ busy: sweep.busy, recovered: sweep.recovered.map((r) => r.conversationId), failed: sweep.failed })
      : `threw: ${sweepError}`;
    const busy = sweep !== undefined && sweep.busy.length === 1 && sweep.busy[0] === CONVERSATION && sweep.recovered.length === 0 && sweep.failed.length === 0;
    return [
      {
        name: 'the starting host’s sweep counts the conversation another host is serving busy, and recovers nothing',
        passed: busy,
        message: shown,
        expected: `busy: ["${CONVERSATION}"], nothing recovered or failed`,
        actual: shown,
      },
      {
        name: 'the sweep writes nothing to the live conversation',
        passed: afterSweep === before,
        message: `${afterSweep - before} record(s) written by the sweep`,
        expected: '0',
        actual: String(afterSweep - before),
      },
      {
        name: 'the live turn goes on: answered 200 with its reply',
        passed: got.status === 200 && got.reply === 'Saved your note.',
        message: `${got.status} ${got.error ?? got.reply ?? ''}`,
        expected: '200 Saved your note.',
        actual: `${got.status} ${got.error ?? got.reply ?? ''}`,
      },
      {
        name: 'its STATEFUL call ran once and the turn closed once, replied',
        passed: runs === 1 && closes.length === 1 && closes[0] === 'replied',
        message: `save_note ran ${runs} time(s); closes: ${JSON.stringify(closes)}`,
        expected: 'ran 1 time; closes: ["replied"]',
        actual: `ran ${runs} time(s); closes: ${JSON.stringify(closes)}`,
      },
    ];
  } finally {
    finish();
    await starting.close();
    await live.close();
  }
}

export function hostSweepCases(): Case[] {
  return [
    checksCase(
      {
        id: 'contract:host/sweep-of-a-starting-host-leaves-a-live-turn-alone',
        title: 'host: a host started while another serves the store counts the live conversation busy and leaves its turn alone',
        file: FILE,
      },
      sweepBesideALiveTurn,
    ),
  ];
}
