/**
 * Tools the generated model calls, and how each one behaves when it runs: ok,
 * failed, throwing, hanging until its timeout, slow, at every side-effect level.
 *
 * A `FuzzTool` names a tool the agent has (or a scripted one the scenario adds)
 * and the arguments the model may send it — valid, invalid and raw text — so the
 * same generators serve the example agent and a user's own tools.
 */
import fc from 'fast-check';
import type { Behaviour, ScenarioTool } from '../../harness/scenario/schema.ts';
import { sometimes } from './optional.ts';

export const SIDE_EFFECTS = ['NONE', 'IDEMPOTENT', 'STATEFUL', 'CRITICAL'] as const;
export type SideEffectLevel = (typeof SIDE_EFFECTS)[number];

export interface FuzzTool {
  readonly name: string;
  /** Arguments the model sends: valid ones first (fast-check shrinks towards the first). */
  readonly args: fc.Arbitrary<unknown>;
  /** The level the tool declares (default NONE); overrides may change it. */
  readonly sideEffect?: SideEffectLevel;
  /** For a tool the agent does not have: the scenario declares it (`tools:` with a description). */
  readonly scripted?: { readonly description: string; readonly input?: Readonly<Record<string, string>> };
}

const orderId = fc.constantFrom('ORD-1001', 'ORD-1002', 'ORD-1003', 'ORD-9999');
/** What a model sends when it gets arguments wrong: missing fields, or text that is not quite JSON. */
const broken = fc.constantFrom<unknown>({}, '{"order_id": "ORD-1002",}', 'not json at all');

/** The example after-sales agent's tools (scenarios/example-agent), plus a scripted `probe` tool. */
export const SUPPORT_TOOLS: readonly FuzzTool[] = [
  {
    name: 'lookup_order',
    args: fc.oneof({ withCrossShrink: true }, { weight: 4, arbitrary: orderId.map((order_id) => ({ order_id })) }, { weight: 1, arbitrary: broken }),
  },
  {
    name: 'add_note',
    sideEffect: 'IDEMPOTENT',
    args: fc.oneof(
      { withCrossShrink: true },
      { weight: 4, arbitrary: fc.record({ order_id: orderId, note: fc.constantFrom('customer called', 'refund pending') }) },
      { weight: 1, arbitrary: broken },
    ),
  },
  {
    name: 'issue_refund',
    sideEffect: 'STATEFUL',
    args: fc.oneof(
      { withCrossShrink: true },
      { weight: 4, arbitrary: fc.record({ order_id: orderId, amount: fc.constantFrom(10, 45.5, 120, 500), reason: fc.constantFrom('damaged', 'late') }) },
      { weight: 1, arbitrary: broken },
    ),
  },
  {
    name: 'notify_customer',
    sideEffect: 'CRITICAL',
    args: fc.oneof(
      { withCrossShrink: true },
      {
        weight: 4,
        arbitrary: fc.record({
          customer: fc.constantFrom('ada@example.com', 'grace@example.com'),
          message: fc.constantFrom('Your refund is on its way.', 'Sorry!'),
        }),
      },
      { weight: 1, arbitrary: fc.constantFrom<unknown>({ customer: 'not-an-email', message: 'hi' }) },
    ),
  },
  { name: 'probe', args: fc.constant({}), scripted: { description: 'A scripted tool the fuzzer adds: it does nothing unless its behaviour says so.' } },
];

/** A name no agent declares: calls to it must be refused as not available. */
export const UNKNOWN_TOOL = 'no_such_tool';

/** One execution attempt's behaviour. `ok` first: it shrinks towards a tool that just works. */
export const behaviourArb: fc.Arbitrary<Behaviour> = fc.oneof(
  { withCrossShrink: true },
  { weight: 6, arbitrary: fc.constant<Behaviour>('ok') },
  { weight: 2, arbitrary: fc.record({ fail: fc.record({ code: fc.constantFrom('E_FUZZ', 'UPSTREAM_DOWN'), retryable: fc.boolean() }) }) },
  { weight: 1, arbitrary: fc.constant<Behaviour>({ throw: 'fuzz: the tool threw' }) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 30_000 }).map((slow): Behaviour => ({ slow })) },
  { weight: 1, arbitrary: fc.constant<Behaviour>('hang') },
  { weight: 1, arbitrary: fc.constant<Behaviour>({ return: { ok: true, note: 'scripted output' } }) },
);

/**
 * Overrides for some of the tools: side-effect level, parallel safety, timeout,
 * retries, and a behaviour script (one entry per attempt; the last repeats).
 */
export function toolOverridesArb(tools: readonly FuzzTool[]): fc.Arbitrary<ScenarioTool[]> {
  const scriptedOnes = tools.filter((t) => t.scripted);
  const override = (tool: FuzzTool): fc.Arbitrary<ScenarioTool> =>
    fc
      .record(
        {
          sideEffect: fc.constantFrom(...SIDE_EFFECTS),
          parallelSafe: fc.boolean(),
          timeoutMs: fc.integer({ min: 100, max: 20_000 }),
          maxRetries: fc.integer({ min: 0, max: 3 }),
          behaviour: fc.array(behaviourArb, { minLength: 1, maxLength: 3 }),
        },
        { requiredKeys: [] },
      )
      .map(({ maxRetries, ...o }) => {
        // The registry refuses retries for tools that must never run twice.
        const level = o.sideEffect ?? tool.sideEffect ?? 'NONE';
        const retries = maxRetries !== undefined && (level === 'NONE' || level === 'IDEMPOTENT') ? { maxRetries } : {};
        return {
          name: tool.name,
          ...(tool.scripted ? { description: tool.scripted.description, ...(tool.scripted.input ? { input: { ...tool.scripted.input } } : {}) } : {}),
          ...o,
          ...retries,
        };
      });
  // The agent's own tools are overridden only sometimes; a scripted tool is usually declared (called undeclared, it is "not available").
  const own = tools.filter((t) => !t.scripted).map((t) => sometimes(override(t), 50));
  const scripted = scriptedOnes.map((t) => sometimes(override(t), 80));
  return fc
    .tuple(fc.tuple(...own), fc.tuple(...scripted))
    .map(([overridden, declared]) => [...overridden, ...declared].filter((o): o is ScenarioTool => o !== undefined));
}
