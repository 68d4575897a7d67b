/**
 * Your AI SDK agent as a loopgate agent factory: your `tool({ description,
 * inputSchema, execute })` tools, built fresh per case, with the side-effect
 * level the AI SDK has no word for. The harness then scripts and counts them
 * like any agent's tools, and `aiSdkLoop` hands them back to `generateText` as
 * AI SDK tools — so your own `execute` bodies run inside the SDK's loop, and the
 * same agent can run through loopgate's loop too (`--loop loopgate`).
 *
 *   agents: { travel: aiSdkAgent({ system, tools: () => ({ reserve_seat: tool({ … }) }), sideEffects: { reserve_seat: 'STATEFUL' }, secrets: [process.env.SEAT_API_KEY!] }) }
 */
import type { ToolSet } from 'ai';
import type { z } from 'zod';
import type { AgentFactory, AnyToolDeclaration, PolicyRule, SideEffect } from '../../kernel/index.ts';
import { markSdkApproval } from '../../harness/loop-port/tool-approval.ts';
import { sdkCallContext } from './call-context.ts';

export interface AiSdkAgentOptions {
  readonly system?: string;
  /** Your tools, built fresh for every case (tools that keep state must not share it across cases). Input schemas must be zod. */
  readonly tools: () => ToolSet | Promise<ToolSet>;
  /**
   * Each tool's side-effect level; default NONE. STATEFUL and CRITICAL tools are held to "never run twice" and "told
   * after a failed turn". Whatever the level, a tool is never run again after it throws, as in the AI SDK.
   */
  readonly sideEffects?: Readonly<Record<string, SideEffect>>;
  /**
   * Values that must never leave the agent (API keys, tokens your tools hold):
   * redacted from tool results, replies, history, traces and reports, and checked by
   * invariant 15 in every case — in every loop — without a scenario's `secrets:`.
   */
  readonly secrets?: readonly string[];
  /**
   * What your tools read as `experimental_context` (the signed-in user, a tenant): given to every `execute` in
   * every loop, as `generateText({ experimental_context })` gives it — so the gate runs them as production does.
   */
  readonly context?: unknown;
}

/** AI SDK tool settings the gate does not run as the SDK would: refused by name. */
const UNCARRIED: readonly (readonly [string, string])[] = [
  ['toModelOutput', 'the model is shown what it returns instead of the result'],
  ['onInputStart', 'called as the call streams in'],
  ['onInputDelta', 'called as the call streams in'],
  ['onInputAvailable', 'called before execute'],
];

/** What a tool's `execute` settles to: its value, or an async generator's last yield (the AI SDK's final output). */
async function lastValue(result: unknown): Promise<unknown> {
  if (result === null || typeof result !== 'object' || typeof (result as AsyncIterable<unknown>)[Symbol.asyncIterator] !== 'function') return result;
  let last: unknown;
  for await (const value of result as AsyncIterable<unknown>) last = value;
  return last;
}

/**
 * A tool's `needsApproval` as the ask rule of the agent's policy (`<tool>.needsApproval`): `true` asks about every
 * call, a function about the calls it answers truthy for (as the SDK reads it), with the call's arguments and the
 * agent's context — so loopgate's loop and host put to the approver exactly the calls the SDK would hold, and a
 * "no" (or no approver) runs nothing. The policy decides each call at once: an async function, whose promise it
 * could never await, is refused naming it, as is a plain function answering a promise for no arguments; one that
 * throws, or answers a promise for some arguments only, asks.
 */
function approvalRule(name: string, needsApproval: unknown, context: unknown): PolicyRule[] {
  // As the SDK reads it: absent, null or false asks nothing.
  if (needsApproval === undefined || needsApproval === null || needsApproval === false) return [];
  const rule = { id: `${name}.needsApproval`, tools: [name], decision: 'ask' as const, reason: `${name} needs approval (needsApproval)` };
  if (needsApproval === true) return [markSdkApproval(rule, true)];
  if (typeof needsApproval !== 'function')
    throw new Error(`aiSdkAgent: tool ${name}'s needsApproval must be true, false or a function of the call's input, got ${typeof needsApproval}`);
  if (needsApproval.constructor?.name === 'AsyncFunction')
    throw new Error(
      `aiSdkAgent: tool ${name}'s needsApproval is an async function: loopgate's policy decides each call at once and never awaits a promise; give a function that answers a boolean at once (({ order }) => order.startsWith('VIP')), or true`,
    );
  const asks = needsApproval as (input: unknown, options: { toolCallId: string; messages: []; experimental_context: unknown }) => unknown;
  // A plain function may answer a promise all the same (an async function transpiled, or one handing its work to a
  // promise): the SDK awaits it, the policy could not, and the loops would hold other calls (outside probe 46). One
  // call with no arguments tells it — a promise it answers (even one rejecting) is refused; one that throws says nothing.
  let probe: unknown;
  try {
    probe = asks({}, { toolCallId: '', messages: [], experimental_context: context });
  } catch {
    probe = undefined;
  }
  if (typeof (probe as { then?: unknown } | null)?.then === 'function') {
    Promise.resolve(probe).catch(() => {});
    throw new Error(
      `aiSdkAgent: tool ${name}'s needsApproval answers a promise (an async function, maybe transpiled): loopgate's policy decides each call at once and never awaits a promise; give a function that answers a boolean at once (({ order }) => order.startsWith('VIP')), or true`,
    );
  }
  return [
    markSdkApproval(
      {
        ...rule,
        when: (args: unknown) => {
          // The policy decides before a call has loopgate's key: toolCallId is '' here, messages empty (README).
          const answer = asks(args, { toolCallId: '', messages: [], experimental_context: context });
          // A promise is left to the policy, which asks (an error never opens a door); anything else is read as the SDK reads it.
          return typeof (answer as { then?: unknown } | null)?.then === 'function' ? (answer as never) : Boolean(answer);
        },
      },
      needsApproval,
    ),
  ];
}

export function aiSdkAgent(options: AiSdkAgentOptions): AgentFactory {
  return async () => {
    const tools = await options.tools();
    for (const name of Object.keys(options.sideEffects ?? {}))
      if (!(name in tools)) throw new Error(`aiSdkAgent: sideEffects names ${name}, which is not one of the tools (${Object.keys(tools).join(', ')})`);
    const asks = Object.entries(tools).flatMap(([name, t]) => approvalRule(name, (t as { needsApproval?: unknown }).needsApproval, options.context));
    return {
      ...(options.system !== undefined ? { system: options.system } : {}),
      ...(options.secrets !== undefined ? { secrets: options.secrets } : {}),
      ...(asks.length > 0 ? { policy: { rules: asks } } : {}),
      tools: Object.entries(tools).map(([name, t]): AnyToolDeclaration => {
        const input = t.inputSchema as unknown as z.ZodType;
        if (typeof (input as { safeParse?: unknown })?.safeParse !== 'function')
          throw new Error(`aiSdkAgent: tool ${name}: its inputSchema must be a zod schema (loopgate validates and fuzzes with it)`);
        const execute = t.execute;
        if (typeof execute !== 'function') throw new Error(`aiSdkAgent: tool ${name} has no execute: a tool the app runs itself cannot be gated`);
        // Settings that change what runs or what the model is shown: the gate would certify another agent than the
        // one that ships (a model shown a summary in production, the raw result in the gate), so each is refused, never dropped.
        for (const [key, what] of UNCARRIED) {
          const value = (t as Record<string, unknown>)[key];
          if (value !== undefined && value !== false)
            throw new Error(
              `aiSdkAgent: tool ${name} sets ${key} (${what}), which loopgate cannot carry into the gate: remove it from the tool the gate builds`,
            );
        }
        return {
          name,
          description: t.description ?? name,
          input,
          sideEffect: options.sideEffects?.[name] ?? 'NONE',
          // The AI SDK never runs a tool again after it throws or times out: nor does any loop the gate runs it in
          // (left to the level, a tool given no sideEffects entry was retried as a read — a charge that then threw
          // ran three times; outside probe 31, F5).
          maxRetries: 0,
          // In an AI SDK loop, the context the SDK gave this call (the agent's, or its prepareCall's or prepareStep's); else the agent's own.
          // The body's toolCallId is loopgate's key for the call (`<conversation>/<tool>:<call id>`): a case's own, though
          // scenarios reuse ids and cases run at once, and the same after a crash — what a body keying a payment on
          // it needs (outside probe 41, F4: every case's refund reached the backend as "r1").
          run: (args, ctx) => {
            const given = sdkCallContext.getStore()?.context;
            return lastValue(
              execute(args, {
                toolCallId: ctx.idempotencyKey,
                messages: [],
                abortSignal: ctx.signal,
                experimental_context: given !== undefined ? given : options.context,
              }),
            );
          },
        };
      }),
    };
  };
}
