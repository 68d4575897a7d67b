/**
 * Which client a request goes to, and which model it names: each client is asked
 * for its own model, and a client that gave a retry-after is not asked again
 * inside that window — by a later step or turn either (field failures "the
 * fallback model is asked for the primary's model name" and "retry-after is
 * forgotten at the next step").
 */
import { describe, expect, it } from 'vitest';
import { reply, transportError } from '../../../providers/fake/results.ts';
import { ScriptedModelClient, type ScriptItem } from '../../../providers/fake/scripted.ts';
import { createWorld, spanShape, TEST_CONFIG } from '../../../test/support/world.ts';

const sentTo = (world: ReturnType<typeof createWorld>) => world.eventsOf('model.request').map((e) => `${String(e.payload.client)}/${String(e.payload.model)}`);
const limited = (ms: number) => transportError('rate_limited', { status: 429, retryAfterMs: ms });

function twoClients(primary: readonly ScriptItem[], fallback: readonly ScriptItem[], retries = TEST_CONFIG.retry) {
  const model = new ScriptedModelClient(primary, { name: 'primary', model: 'claude-sonnet-4-5' });
  const backup = new ScriptedModelClient(fallback, { name: 'fallback', model: 'gpt-4o-mini' });
  return { model, backup, world: createWorld({ model, fallbackModels: [backup], config: { retry: { ...retries, maxRetryAfterMs: 60_000 } } }) };
}
/** No retries within a step: an error goes straight to the fallback, then fails. */
const noTiers = { ...TEST_CONFIG.retry, immediateRetries: 0, backoffRetries: 0 };

describe('the client a request goes to', () => {
  it('names each client its own model; a client without one gets the configured model', async () => {
    const { model, backup, world } = twoClients([transportError('overloaded')], [reply('from the fallback')], noTiers);
    expect((await world.turn('hi')).reply).toBe('from the fallback');
    expect(model.requests.map((r) => r.model)).toEqual(['claude-sonnet-4-5']);
    expect(backup.requests.map((r) => r.model)).toEqual(['gpt-4o-mini']);
    const plain = createWorld({ script: [reply('ok')] });
    await plain.turn('hi');
    expect(sentTo(plain)).toEqual(['scripted/test-model']);
  });

  it('a long retry-after sends the step to the fallback and keeps later turns off the primary until the window ends', async () => {
    const { world } = twoClients([limited(120_000), reply('primary again')], [reply('fallback 1'), reply('fallback 2')]);
    expect((await world.turn('one')).reply).toBe('fallback 1');
    expect((await world.turn('two')).reply).toBe('fallback 2');
    expect(sentTo(world)).toEqual(['primary/claude-sonnet-4-5', 'fallback/gpt-4o-mini', 'fallback/gpt-4o-mini']);
    await world.clock.run(world.clock.advance(120_000));
    expect((await world.turn('three')).reply).toBe('primary again');
  });

  it('with every client inside its window, a step waits for the first to end, or fails rate_limited when that is longer than the loop waits', async () => {
    const { world } = twoClients([limited(90_000), reply('not asked')], [limited(30_000), reply('after the wait')], noTiers);
    const first = await world.turn('one');
    expect(first.outcome).toMatchObject({ kind: 'failed', reason: 'rate_limited' });
    // The fallback's window has 30 s to go, within the 60 s the loop waits: the step waits for it.
    const second = await world.turn('two');
    expect(second.reply).toBe('after the wait');
    expect(sentTo(world)).toEqual(['primary/claude-sonnet-4-5', 'fallback/gpt-4o-mini', 'fallback/gpt-4o-mini']);
    expect(spanShape(second.trace).slice(0, 2)).toEqual(['turn:ok', 'turn > backoff:ok']);
    expect(world.clock.now()).toBe(30_000);

    const { world: blocked } = twoClients([limited(90_000)], [limited(90_000)], noTiers);
    await blocked.turn('one');
    const none = await blocked.turn('two');
    expect(none.outcome).toMatchObject({ kind: 'failed', reason: 'rate_limited' });
    expect(none.outcome.kind === 'failed' && none.outcome.detail).toMatch(/every model client is inside its retry-after window; the first ends in 90000 ms/);
    expect(sentTo(blocked)).toHaveLength(2);
  });
});
