/**
 * The support desk's courier agent written the AI SDK way: AI SDK tools
 * (`{ description, inputSchema: zod, execute }`, what `tool()` returns) turned
 * into a loopgate agent by `aiSdkAgent`. The bundled cases under `ai-sdk-agent/`
 * run it through loopgate's loop (`loopgate run`) and through `generateText`
 * (`--loop ai-sdk`): they are what gates `aiSdkAgent` itself. `ai` is only a type
 * import here — the tools are the plain objects `tool()` would return — so the
 * bundled suite still loads without the optional `ai` package.
 */
import type { ToolSet } from 'ai';
import { z } from 'zod';
import { aiSdkAgent } from '../../src/loops/ai-sdk/agent.ts';

/** The depot's key: declared as the agent's secret, so every case checks it never leaves (no scenario `secrets:` needed). */
export const DEPOT_KEY = 'depot-key-Z8q2Lm4Rt7Vx';

/**
 * A courier hold that runs until the turn's abort signal stops it, a status tool that says what became of it, a
 * depot door whose error quotes its key, and a tracker that streams its answer and reads the app's context.
 */
export const aiSdkCourierAgent = aiSdkAgent({
  system: 'You arrange courier pick-ups for ORD orders.',
  tools: (): ToolSet => {
    // Per build (per case, per conversation): what became of each hold.
    const holds = new Map<string, 'holding' | 'stopped'>();
    const texted = new Map<string, string>(); // the SMS gateway's requests, by their idempotency key
    return {
      hold_for_courier: {
        description: 'Hold the parcel at the depot until the courier arrives (runs until the courier comes or the turn is stopped).',
        inputSchema: z.object({ order_id: z.string().regex(/^ORD-\d{4}$/) }),
        execute: ({ order_id }: { order_id: string }, { abortSignal }: { abortSignal?: AbortSignal }) =>
          new Promise<never>((_resolve, reject) => {
            holds.set(order_id, 'holding');
            const stop = () => {
              holds.set(order_id, 'stopped');
              reject(new Error(`hold on ${order_id} stopped: the turn was cancelled`));
            };
            // The courier never comes in these cases: only the abort signal ends the hold (it may have fired already).
            if (abortSignal?.aborted) stop();
            else abortSignal?.addEventListener('abort', stop, { once: true });
          }),
      },
      depot_access: {
        description: 'Open the depot door for a parcel pick-up.',
        inputSchema: z.object({ order_id: z.string().regex(/^ORD-\d{4}$/) }),
        // The door's error quotes the key it was given: a secret the gate must never let through.
        execute: async ({ order_id }: { order_id: string }) => {
          throw new Error(`depot door refused key ${DEPOT_KEY} for ${order_id}`);
        },
      },
      // A streaming tool (AI SDK preliminary results: the last yield is the result) that reads the app's context.
      track_parcel: {
        description: 'Where a parcel is now, as the depot the desk works for sees it.',
        inputSchema: z.object({ order_id: z.string().regex(/^ORD-\d{4}$/) }),
        async *execute({ order_id }: { order_id: string }, { experimental_context }: { experimental_context?: unknown }) {
          yield { order_id, status: 'looking' };
          const depot = (experimental_context as { depot?: unknown } | undefined)?.depot;
          if (typeof depot !== 'string') throw new Error('no depot in the context: which depot is asking?');
          yield { order_id, depot, status: 'at the depot' };
        },
      },
      // A tool with a side effect the team forgot to declare (no sideEffects entry): it texts the courier, then the
      // gateway times out. The AI SDK never runs a tool again after it throws; neither may any loop the gate runs it in.
      notify_courier: {
        description: 'Text the courier that the parcel is ready.',
        inputSchema: z.object({ order_id: z.string().regex(/^ORD-\d{4}$/) }),
        // The gateway's request is keyed by the AI SDK's toolCallId (as the SDK docs suggest for idempotency): a loop
        // that hands execute another id would merge two calls' texts into one (outside probe 31, F11). In the gate it
        // is loopgate's key for the call, each case's own (outside probe 41, F4).
        execute: async ({ order_id }: { order_id: string }, { toolCallId }: { toolCallId: string }) => {
          texted.set(toolCallId, order_id);
          throw new Error(`SMS gateway timed out after the text about ${order_id} went out (${texted.size} sent)`);
        },
      },
      hold_status: {
        description: 'Whether a parcel is still held at the depot.',
        inputSchema: z.object({ order_id: z.string().regex(/^ORD-\d{4}$/) }),
        execute: async ({ order_id }: { order_id: string }) => ({ order_id, hold: holds.get(order_id) ?? 'none' }),
      },
    };
  },
  sideEffects: { hold_for_courier: 'STATEFUL', depot_access: 'STATEFUL' },
  secrets: [DEPOT_KEY],
  // What the app hands every execute as experimental_context (the desk's depot), in every loop.
  context: { depot: 'DEPOT-NORTH' },
});
