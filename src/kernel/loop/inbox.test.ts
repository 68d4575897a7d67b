/**
 * Invariant 9: inject never wakes an idle loop; a taken message is never lost or
 * delivered twice. And the loop stops when the inbox is empty, not when the model
 * stops asking for tools.
 */
import { describe, expect, it } from 'vitest';
import { call, reply, toolUse } from '../../../providers/fake/results.ts';
import { SupportBackend } from '../../../scenarios/example-agent/backend.ts';
import { supportTools } from '../../../scenarios/example-agent/tools.ts';
import { createWorld, renderMessages } from '../../../test/support/world.ts';
import { hasWakingWork, takeForNextStep, takeForTurnStart } from './inbox.ts';

const pending = (...intents: ('follow_up' | 'steer' | 'inject')[]) =>
  intents.map((intent, i) => ({ id: `m${i}`, intent, text: `t${i}`, source: 'user', seq: i }));

describe('inbox rules', () => {
  it('inject alone never wakes; follow-up and steer do', () => {
    expect(hasWakingWork(pending('inject', 'inject'))).toBe(false);
    expect(hasWakingWork(pending('inject', 'steer'))).toBe(true);
    expect(hasWakingWork(pending('follow_up'))).toBe(true);
  });
  it('a turn takes up to its first follow-up and never a second one', () => {
    expect(takeForTurnStart(pending('inject', 'follow_up', 'steer', 'follow_up')).map((m) => m.id)).toEqual(['m0', 'm1', 'm2']);
    expect(takeForTurnStart(pending('inject'))).toEqual([]);
  });
  it('a step takes steers and injects, leaving follow-ups for their turns', () => {
    expect(takeForNextStep(pending('follow_up', 'steer', 'inject')).map((m) => m.id)).toEqual(['m1', 'm2']);
  });
});

describe('inbox in the loop', () => {
  // Outside probe 48, MED-1: a caller's id m1, then a message without one: the loop's own id m1 was refused, the message lost.
  it('an id the loop gives never takes one a caller gave an earlier message', async () => {
    const world = createWorld({ script: [reply('Delivered Monday.'), reply('Yes, until the 30th.')] });
    // The world's loop numbers its ids id0, id1, …: the caller takes the first it would give.
    const first = world.loop.send('Where is ORD-1001?', { id: 'id0' });
    const second = world.loop.send('Can I return it?');
    expect(first).toBe('id0');
    expect(second).toBe('id1');
    const results = await world.drain();
    expect(results.map((r) => r.outcome.kind)).toEqual(['replied', 'replied']);
  });

  it("drains until no waking work is left, even when a turn hands the loop's own notice back", async () => {
    // The loop's notice (what a failed turn did) comes first, then a blank follow-up, then a question: the first turn
    // takes the notice and the blank message, has nothing to answer and returns the notice — the question still needs its turn.
    const world = createWorld({ script: [reply('Your refund went through.')] });
    world.loop.send('[The previous turn failed, but issue_refund (call r) was done.]', { intent: 'inject', source: 'loop:side-effects' });
    world.send(' \n  ');
    world.send('Did it go through?');
    const results = await world.drain();
    expect(results.map((r) => r.outcome.kind)).toEqual(['nothing_to_do', 'replied']);
    expect(world.loop.hasWork()).toBe(false);
    expect(renderMessages(world.scripted!.requests[0]!.messages)).toEqual([
      'user: [The previous turn failed, but issue_refund (call r) was done.] | Did it go through?',
    ]);
  });

  it('an inject into an idle loop starts no turn, and is delivered with the next turn', async () => {
    const world = createWorld({ script: [reply('hello Ada')] });
    world.send('The customer is Ada (from the CRM).', 'inject');
    expect(await world.drain()).toEqual([]);
    expect(world.eventsOf('turn.opened')).toHaveLength(0);
    expect(world.scripted!.requests).toHaveLength(0);

    const result = await world.turn('hi');
    expect(result.outcome.kind).toBe('replied');
    expect(renderMessages(world.scripted!.requests[0]!.messages)).toEqual(['user: The customer is Ada (from the CRM). | hi']);
  });

  it('a steer sent while tools run reaches the model at the next step of the same turn', async () => {
    const backend = new SupportBackend();
    const world = createWorld({
      tools: supportTools(backend),
      script: [
        (request) => {
          // The user types while the model works.
          world.send('Actually it is ORD-1002.', 'steer');
          void request;
          return toolUse([call('a', 'lookup_order', { order_id: 'ORD-1001' })]);
        },
        toolUse([call('b', 'lookup_order', { order_id: 'ORD-1002' })]),
        reply('ORD-1002 has shipped.'),
      ],
    });
    const result = await world.turn('Where is ORD-1001?');
    expect(result.outcome.kind).toBe('replied');
    expect(result.steps).toBe(3);
    const second = renderMessages(world.scripted!.requests[1]!.messages);
    expect(second[2]).toMatch(/^user: result#a ok: .* \| Actually it is ORD-1002\.$/);
  });

  it('a steer that arrives with the reply extends the turn instead of being dropped', async () => {
    const world = createWorld({
      script: [
        () => {
          world.send('And in French please.', 'steer');
          return reply('Your order shipped.');
        },
        reply('Votre commande a été expédiée.'),
      ],
    });
    const result = await world.turn('Where is my order?');
    expect(result.reply).toBe('Votre commande a été expédiée.');
    expect(result.steps).toBe(2);
    expect(world.log.positions.pending()).toEqual([]);
  });

  it('follow-ups queued during a turn each get their own turn, in order; the loop stops when the inbox is empty', async () => {
    const world = createWorld({
      script: [
        () => {
          world.send('second question');
          world.send('third question');
          return reply('first answer');
        },
        reply('second answer'),
        reply('third answer'),
      ],
    });
    world.send('first question');
    const results = await world.drain();
    expect(results.map((r) => r.reply)).toEqual(['first answer', 'second answer', 'third answer']);
    expect(world.log.positions.pending()).toEqual([]);
    expect(world.eventsOf('user.message').map((e) => e.payload.text)).toEqual(['first question', 'second question', 'third question']);
  });

  it('a steer taken for the next step, then an abort: the steer goes back to the inbox, in order, and is delivered once', async () => {
    const backend = new SupportBackend();
    const world = createWorld({
      tools: supportTools(backend),
      script: [
        () => {
          world.send('steer one', 'steer');
          world.send('steer two', 'steer');
          return toolUse([call('a', 'lookup_order', { order_id: 'ORD-1001' })]);
        },
        // Step 2 takes both steers; the user cancels while the model thinks.
        { result: reply('never seen'), latencyMs: 10_000 },
        reply('answered both steers'),
      ],
    });
    world.send('start');
    void world.clock.sleep(5_000).then(() => world.loop.cancel('user'));
    const [first] = await world.drain();
    expect(first!.outcome).toEqual({ kind: 'cancelled', by: 'user' });
    const steerIds = world
      .eventsOf('inbox.received')
      .filter((e) => String(e.payload.text).startsWith('steer'))
      .map((e) => e.payload.id);
    expect(first!.returnedToInbox).toEqual(steerIds);
    expect(world.log.positions.pending().map((m) => m.text)).toEqual(['steer one', 'steer two']);

    // The next drain delivers them exactly once.
    const [second] = await world.drain();
    expect(second!.reply).toBe('answered both steers');
    const delivered = world.eventsOf('user.message').filter((e) => String(e.payload.text).startsWith('steer'));
    expect(delivered).toHaveLength(4); // taken, returned, taken again — each take is its own event
    expect(world.log.positions.pending()).toEqual([]);
    const lastRequest = renderMessages(world.scripted!.requests[2]!.messages).join('\n');
    expect(lastRequest.match(/steer one/g)).toHaveLength(1); // never twice in what the model sees
  });

  it('a cancel while idle does nothing and is not recorded', () => {
    const world = createWorld();
    expect(world.loop.cancel('user')).toBe(false);
    expect(world.log.length).toBe(0);
  });
});
