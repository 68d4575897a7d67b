/**
 * `aiSdkAgent` hands the user's `execute` what the AI SDK would: the call id and
 * the abort signal. Probe 17, plant R4: with the signal dropped, a cancelled
 * turn's `execute` (a fetch, a booking) ran on in the background, and no gate
 * noticed — no bundled case goes through `aiSdkAgent`.
 */
import { tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { aiSdkAgent } from './agent.ts';

describe('aiSdkAgent', () => {
  it("passes loopgate's key for the call as its id, and the turn's abort signal, to the user's execute", async () => {
    const seen: { id?: string; aborted?: boolean } = {};
    const factory = aiSdkAgent({
      tools: () => ({
        open_ticket: tool({
          description: 'Open a ticket.',
          inputSchema: z.object({ title: z.string() }),
          execute: ({ title }, { toolCallId, abortSignal }) =>
            new Promise<string>((resolve) => {
              seen.id = toolCallId;
              abortSignal?.addEventListener('abort', () => {
                seen.aborted = true;
                resolve(`stopped ${title}`);
              });
            }),
        }),
      }),
      sideEffects: { open_ticket: 'STATEFUL' },
    });
    const agent = await factory({} as never);
    const open = agent.tools!.find((t) => t.name === 'open_ticket')!;
    const controller = new AbortController();
    const running = open.run({ title: 'VPN down' }, { callId: 't1', idempotencyKey: 'c1/open_ticket:t1', signal: controller.signal } as never);
    controller.abort();
    await expect(Promise.race([running, new Promise((r) => setTimeout(() => r('still running'), 200))])).resolves.toBe('stopped VPN down');
    expect(seen).toEqual({ id: 'c1/open_ticket:t1', aborted: true });
  });

  it("declares the secrets it is given as the agent's own (probe 17, F3: there was no place for them)", async () => {
    const factory = aiSdkAgent({
      tools: () => ({ audit: tool({ description: 'Audit.', inputSchema: z.object({}), execute: async () => 'ok' }) }),
      secrets: ['hd-admin-Q7vN3kP9xL2mR8tZ'],
    });
    expect((await factory({} as never)).secrets).toEqual(['hd-admin-Q7vN3kP9xL2mR8tZ']);
    expect('secrets' in (await aiSdkAgent({ tools: () => ({}) })({} as never))).toBe(false);
  });
});
