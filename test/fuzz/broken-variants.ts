/**
 * Deliberately broken variants of the loop's world, built in test code through
 * the second host's test-only seams (src/harness/second-host.ts, TestSeams) —
 * never by editing the kernel. The fuzzer must find each bug and shrink it.
 *
 * To reproduce a counterexample of one of these by hand, run its file through
 * the same seam: `reproduce(file, { seams: VARIANT.seams })` (src/fuzz/reproduce.ts)
 * fails, while `loopgate run FILE` — the real world — passes.
 */
import {
  createToolExecutor,
  type LoopDeps,
  type ModelClient,
  type ModelDelta,
  type ModelErrorHandler,
  type ModelResult,
  type ToolExecutor,
} from '../../src/kernel/index.ts';
import type { RunOptions, TestSeams } from '../../src/harness/second-host.ts';
import { PATTERN_HOLD } from '../../src/kernel/index.ts';
import { MemoryEventStore, type MemoryStoreFaults } from '../../src/stores/memory-store.ts';
import type { EventRecord } from '../../src/kernel/index.ts';

export interface BrokenVariant {
  readonly name: string;
  /** What is broken, for test names. */
  readonly bug: string;
  /** The host parts that carry the bug (seams, or a host option such as errorHandlers). */
  readonly host: Omit<RunOptions, 'seed'>;
  /** The id of the invariant that must catch it. */
  readonly invariant: string;
  /** Other invariants that name the same bug, where the first run found meets it in another form. */
  readonly also?: readonly string[];
  /** Optional parts of a scenario its counterexample needs (the rest must shrink away). */
  readonly needs?: readonly ('secrets' | 'tools')[];
}

/** A store that silently loses one event: it acknowledges every write but reads back without seq 4. */
class DroppingStore extends MemoryEventStore {
  override peek(conversationId: string): readonly EventRecord[] {
    return super.peek(conversationId).filter((r) => r.seq !== 4);
  }
  override async read(conversationId: string, fromSeq = 0): Promise<EventRecord[]> {
    return (await super.read(conversationId, fromSeq)).filter((r) => r.seq !== 4);
  }
}

/**
 * A store whose synchronous range read gives one record past the end asked for (`to` read as inclusive). The log
 * refuses what it gave as its prefix; reproducing the counterexample judged that run and threw out of `fuzz` as an
 * internal error, exit 2, with a stack (outside probe 66b, mem-range-incl).
 */
class RangePastItsEndStore extends MemoryEventStore {
  override readRangeSync(conversationId: string, from: number, to: number): EventRecord[] {
    return this.peek(conversationId).slice(from, Math.max(from, to) + 1);
  }
}

const wrapCall = (client: ModelClient, call: ModelClient['call']): ModelClient => ({ name: client.name, call });

/** A provider fake that rejects instead of settling with a transport error. */
const rejectingProvider: TestSeams['wrapModel'] = (client) =>
  wrapCall(client, async (request, onDelta) => {
    const result = await client.call(request, onDelta);
    if (result.type === 'transport_error') throw new Error(`${result.kind}: ${result.message}`);
    return result;
  });

/** A provider fake that returns tool_use with its calls missing (a malformed result). */
const malformedProvider: TestSeams['wrapModel'] = (client) =>
  wrapCall(client, async (request, onDelta) => {
    const result = await client.call(request, onDelta);
    return result.type === 'tool_use' ? ({ ...result, calls: [] } as ModelResult) : result;
  });

/** A provider fake that settles twice, in effect: it keeps streaming into a call that already settled (the previous request's callback). */
const lateStreamingProvider: TestSeams['wrapModel'] = (client) => {
  let previous: ((delta: ModelDelta) => void) | undefined;
  return wrapCall(client, async (request, onDelta) => {
    previous?.({ kind: 'text', text: ' (a stale chunk)' });
    previous = onDelta;
    return client.call(request, onDelta);
  });
};

/** The loop with one transition changed: a refusal is taken as a reply. */
const refusalAsReply = (deps: LoopDeps): LoopDeps => ({
  ...deps,
  model: wrapCall(deps.model, async (request, onDelta) => {
    const result = await deps.model.call(request, onDelta);
    if (result.type !== 'refusal') return result;
    const text = result.text || 'I refused.';
    return { type: 'reply', content: [{ type: 'text', text }], text, ...(result.usage ? { usage: result.usage } : {}) };
  }),
});

/** The error chain with one transition changed: an authentication failure is retried instead of failing the turn. */
const retryAuth: ModelErrorHandler = {
  name: 'retry-auth',
  handle: (error) =>
    error.type === 'transport_error' && error.kind === 'auth' ? { action: 'retry', delayMs: 0, detail: 'retrying auth (broken)' } : undefined,
};

/** A tool pipeline that lets a deny through: when the policy denies a call, it runs it with a pipeline that has no policy. */
/**
 * A stream redactor that lets out all but the held tail without moving the cut to
 * the start of a secret that spans it (outside probe 9, plant P06): a secret across
 * `length - hold` is stored in two deltas, each redacted alone, that rebuild it.
 */
const cutThroughSecrets = (deps: LoopDeps): LoopDeps => ({
  ...deps,
  streamRedaction: (redact) => {
    const hold = Math.max(PATTERN_HOLD, redact.longest ?? 0);
    let buffer = '';
    return {
      push: (piece) => {
        buffer += piece;
        if (buffer.length <= hold) return '';
        const out = buffer.slice(0, buffer.length - hold);
        buffer = buffer.slice(buffer.length - hold);
        return redact(out);
      },
      end: () => {
        const out = buffer;
        buffer = '';
        return out.length > 0 ? redact(out) : '';
      },
    };
  },
});

const denyLetThrough: TestSeams['wrapTools'] = (real, options): ToolExecutor => {
  const permissive = createToolExecutor({ ...options, policy: { default: 'allow' }, visibility: [] });
  return {
    specs: () => real.specs(),
    parallelSafe: (name) => real.parallelSafe(name),
    execute: async (call, ctx) => {
      const settled = await real.execute(call, ctx);
      return settled.error?.error_code === 'DENIED' ? permissive.execute(call, ctx) : settled;
    },
  };
};

export const BROKEN_VARIANTS: readonly BrokenVariant[] = [
  {
    name: 'dropping-store',
    bug: 'a store that drops one event',
    host: { seams: { store: (faults: MemoryStoreFaults) => new DroppingStore({ faults }) } },
    invariant: 'invariant-02-one-append-frozen',
  },
  {
    name: 'range-past-its-end-store',
    bug: 'a store whose range read gives one record past its end',
    host: { seams: { store: (faults: MemoryStoreFaults) => new RangePastItsEndStore({ faults }) } },
    // Through the production host it refuses the snapshot it wrote (read back with the store's range); through the loop,
    // the log refuses the store's records as its prefix.
    invariant: 'host-keeps-its-contract',
    also: ['invariant-12-nothing-throws'],
  },
  {
    name: 'rejecting-provider',
    bug: 'a provider fake that rejects',
    host: { seams: { wrapModel: rejectingProvider } },
    invariant: 'invariant-12-nothing-throws',
  },
  {
    name: 'malformed-provider',
    bug: 'a provider fake that returns tool_use without calls',
    host: { seams: { wrapModel: malformedProvider } },
    invariant: 'invariant-12-nothing-throws',
  },
  {
    name: 'late-streaming-provider',
    bug: 'a provider fake that streams after settling',
    host: { seams: { wrapModel: lateStreamingProvider } },
    invariant: 'invariant-12-nothing-throws',
  },
  {
    name: 'refusal-as-reply',
    bug: 'a loop variant that takes a refusal as a reply',
    host: { seams: { wrapDeps: refusalAsReply } },
    invariant: 'outcome-follows-table',
    // Or first where the refusal's text is the turn's reply, which no model call returned as one (the draws moved when
    // a cancel at a start record was added, stop 67).
    also: ['replies-come-from-the-model'],
  },
  {
    name: 'auth-retried',
    bug: 'an error chain that retries authentication failures',
    host: { seams: { wrapDeps: (deps) => ({ ...deps, errorHandlers: [retryAuth, ...(deps.errorHandlers ?? [])] }) } },
    invariant: 'outcome-follows-table',
  },
  {
    name: 'per-chunk-redaction',
    bug: 'a loop variant that redacts each streamed delta alone',
    // Each piece passes the redactor; a key split across two pieces is stored in halves.
    host: { seams: { wrapDeps: (deps) => ({ ...deps, streamRedaction: (redact) => ({ push: redact, end: () => '' }) }) } },
    // Found first where the key is split across two deltas: the first piece holds enough of it to be redacted, the
    // second (`abcdef`) passes alone — the stored stream reads "[REDACTED]abcdef" where the message reads "[REDACTED]"
    // (deltas-spell-the-message, checked after the secrets' rules; a piece that short is under what they judge).
    // Before that rule it was found later, where a reply echoing the secrets encoded is split across deltas (15).
    invariant: 'deltas-spell-the-message',
    // Or first where a whole secret is split across two deltas, each piece under what the redactor holds back: the
    // stored stream, joined, holds it (its draws moved when replies began holding half a surrogate pair, stop 62).
    also: ['invariant-15-secrets-never-leave'],
    needs: ['secrets'],
  },
  {
    name: 'stream-cut-through-secret',
    bug: 'a stream redactor that cuts inside a secret at its hold boundary',
    host: { seams: { wrapDeps: cutThroughSecrets } },
    // Found first where the long signing key, streamed every character escaped, is cut at the hold boundary: the
    // two stored deltas, joined, hold the escaped key whole (invariant 15). (A short secret cut anywhere leaves a
    // side of half or more, which the redactor replaces: there what leaks is a piece, secret-fragments-never-leave.)
    invariant: 'invariant-15-secrets-never-leave',
    // Or first where a credential no case declared (the echoed Basic header, redacted by its shape) is cut so: the
    // message redacted, its stored deltas not — the stream spelled apart from its message (its draws moved when
    // scripted cases began cutting streams mid-way, stop 58).
    also: ['deltas-spell-the-message'],
    needs: ['secrets'],
  },
  {
    name: 'deny-let-through',
    bug: 'a tool pipeline that lets a deny through',
    host: { seams: { wrapTools: denyLetThrough } },
    invariant: 'invariant-07-deny-never-lifted',
  },
];
