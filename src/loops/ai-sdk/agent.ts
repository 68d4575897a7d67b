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
import type { AgentFactory, AnyToolDeclaration, SideEffect } from '../../kernel/index.ts';

export interface AiSdkAgentOptions {
  readonly system?: string;
  /** Your tools, built fresh for every case (tools that keep state must not share it across cases). Input schemas must be zod. */
  readonly tools: () => ToolSet | Promise<ToolSet>;
  /** Each tool's side-effect level; default NONE. STATEFUL and CRITICAL tools are held to "never run twice" and "told after a failed turn". */
  readonly sideEffects?: Readonly<Record<string, SideEffect>>;
  /**
   * Values that must never leave the agent (API keys, tokens your tools hold):
   * redacted from tool results, replies, history, traces and reports, and checked by
   * invariant 15 in every case — in every loop — without a scenario's `secrets:`.
   */
  readonly secrets?: readonly string[];
}

export function aiSdkAgent(options: AiSdkAgentOptions): AgentFactory {
  return async () => {
    const tools = await options.tools();
    for (const name of Object.keys(options.sideEffects ?? {}))
      if (!(name in tools)) throw new Error(`aiSdkAgent: sideEffects names ${name}, which is not one of the tools (${Object.keys(tools).join(', ')})`);
    return {
      ...(options.system !== undefined ? { system: options.system } : {}),
      ...(options.secrets !== undefined ? { secrets: options.secrets } : {}),
      tools: Object.entries(tools).map(([name, t]): AnyToolDeclaration => {
        const input = t.inputSchema as unknown as z.ZodType;
        if (typeof (input as { safeParse?: unknown })?.safeParse !== 'function')
          throw new Error(`aiSdkAgent: tool ${name}: its inputSchema must be a zod schema (loopgate validates and fuzzes with it)`);
        const execute = t.execute;
        if (typeof execute !== 'function') throw new Error(`aiSdkAgent: tool ${name} has no execute: a tool the app runs itself cannot be gated`);
        return {
          name,
          description: t.description ?? name,
          input,
          sideEffect: options.sideEffects?.[name] ?? 'NONE',
          run: (args, ctx) => execute(args, { toolCallId: ctx.callId, messages: [], abortSignal: ctx.signal }) as Promise<unknown>,
        };
      }),
    };
  };
}
