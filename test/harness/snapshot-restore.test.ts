/**
 * The gate reaches snapshot restore and catches it going wrong. Through the
 * production host the harness takes a snapshot every few events and keeps no idle
 * session (src/harness/world/host-config.ts), so every case that reopens its
 * conversation — a crash, a refused write, the next message after a turn —
 * resumes from a snapshot and the tail. Here the snapshot handed to the restore is
 * damaged in one plausible way at a time (a bug in restore would do the same): each
 * time, bundled scenarios fail, through the requests sent, the history, the
 * outcomes, the invariants — or because the host refused a snapshot it wrote.
 */
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { LoopSnapshot } from '../../src/kernel/loop/snapshot.ts';
import { loadScenarios } from '../../src/harness/scenario/load.ts';
import { scenarioCase } from '../../src/harness/scenario-case.ts';
import { bundledContext } from '../support/bundled.ts';

const planted = vi.hoisted(() => ({ bug: undefined as ((s: LoopSnapshot) => LoopSnapshot) | undefined, restores: 0 }));

vi.mock('../../src/kernel/loop/snapshot.ts', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/kernel/loop/snapshot.ts')>();
  return {
    ...real,
    resumeFromSnapshot: (...args: Parameters<typeof real.resumeFromSnapshot>) => {
      planted.restores++;
      const [clock, snapshot, ...rest] = args;
      return real.resumeFromSnapshot(clock, planted.bug ? planted.bug(structuredClone(snapshot)) : snapshot, ...rest);
    },
  };
});

const root = join(import.meta.dirname, '../../scenarios/bundled');
const context = await bundledContext();
/** Scenarios whose conversation is reopened through the production host: crashes, refused writes, more than one message. */
const reopening = loadScenarios([root], root).filter(
  (l) =>
    !l.scenario.live && l.scenario.host !== 'loop' && (l.scenario.inbox.filter((e) => e.say !== undefined).length > 1 || l.scenario.inbox.some((e) => e.crash)),
);

async function failing(): Promise<string[]> {
  const failed: string[] = [];
  for (const loaded of reopening) {
    const outcome = await scenarioCase(loaded, context, 'production').run({ seed: 1 });
    if (outcome.status === 'failed') failed.push(loaded.id);
  }
  return failed;
}

/** The projection's message stream without its last message (each message: a head `role + 2 × blocks`, then its blocks). */
function withoutLastMessage(stream: readonly unknown[]): unknown[] {
  let i = 0;
  let last = 0;
  while (i < stream.length) {
    last = i;
    const blocks = (stream[i++] as number) >>> 1;
    for (let k = 0; k < blocks; k++) if (stream[i++] === 0) i += 3;
  }
  return stream.slice(0, last);
}

const BUGS: Record<string, (s: LoopSnapshot) => LoopSnapshot> = {
  'the projection loses its last message': (s) => ({ ...s, projection: { ...s.projection, messages: withoutLastMessage(s.projection.messages) } }),
  'a message taken before the snapshot comes back as pending': (s) => {
    const inbox = s.positions.inbox.map((m) => [...m] as [string, 'follow_up' | 'steer' | 'inject', string, string, number, boolean]);
    const taken = inbox.find((m) => m[5]);
    if (!taken) return s;
    taken[5] = false;
    return { ...s, positions: { ...s.positions, inbox, pending: [taken[0], ...s.positions.pending] } };
  },
  'the open turn is forgotten': (s) => ({ ...s, positions: { ...s.positions, openTurn: null } }),
  'a started tool call comes back as not started': (s) => ({
    ...s,
    positions: {
      ...s.positions,
      calls: ((c) => [c[0], c[1], c[2].map(() => false), c[3], c[4], c[5], c[6].map(() => -1), c[7]] as const)(s.positions.calls),
    },
  }),
  'the tokens spent are forgotten': (s) => ({ ...s, sessionTokens: { ...s.sessionTokens, total: 0 } }),
};

describe('snapshot restore in the gate', () => {
  it('restores from snapshots in the bundled cases that reopen a conversation, and they pass', async () => {
    planted.bug = undefined;
    planted.restores = 0;
    expect(reopening.length).toBeGreaterThan(20);
    expect(await failing()).toEqual([]);
    expect(planted.restores).toBeGreaterThan(reopening.length);
  }, 300_000);

  for (const [name, bug] of Object.entries(BUGS)) {
    it(`fails bundled cases when ${name}`, async () => {
      planted.bug = bug;
      try {
        expect((await failing()).length).toBeGreaterThan(0);
      } finally {
        planted.bug = undefined;
      }
    }, 300_000);
  }
});
