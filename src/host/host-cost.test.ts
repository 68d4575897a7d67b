/** The production host prices its turns with the config's `prices`: each turn's summary in the response carries its cost. */
import { describe, expect, it } from 'vitest';
import { ScriptedModelClient } from '../../providers/fake/scripted.ts';
import { call, reply, toolUse } from '../../providers/fake/results.ts';
import { SupportBackend } from '../../scenarios/example-agent/backend.ts';
import { supportTools } from '../../scenarios/example-agent/tools.ts';
import { MemoryEventStore } from '../stores/memory-store.ts';
import { defaultHostConfig, parseHostConfig } from './config.ts';
import { AgentHost } from './host.ts';

const PRICED = `model: { provider: fake, name: small-model }
prices:
  currency: EUR
  models:
    small-model: { input: 1, output: 2 }
`;

function agent(yaml: string, firstInput = 1000) {
  const config = { ...parseHostConfig(yaml, 'agent.yaml'), store: defaultHostConfig().store };
  const model = new ScriptedModelClient([
    toolUse([call('c1', 'lookup_order', { order_id: 'ORD-1002' })], '', { inputTokens: firstInput, outputTokens: 100 }),
    reply('It has shipped.', { inputTokens: 2000, outputTokens: 100 }),
  ]);
  return new AgentHost({ config, store: new MemoryEventStore(), model, tools: supportTools(new SupportBackend()) });
}

describe('the host prices its turns', () => {
  it("puts each turn's cost in its summary: every model call of the turn at the config's prices", async () => {
    const envelope = await agent(PRICED).handle('c', 'Where is ORD-1002?');
    // (1000 + 2000) × 1 + (100 + 100) × 2 per million = 0.0034
    expect(envelope.turns[0]?.cost).toEqual({ currency: 'EUR', amount: 0.0034, unpricedCalls: 0 });
  });

  it('counts calls to a model without a price apart, never as free; without prices, no cost at all', async () => {
    const unpriced = await agent(PRICED.replace('small-model: {', 'big-model: {')).handle('c', 'Where is ORD-1002?');
    expect(unpriced.turns[0]?.cost).toEqual({ currency: 'EUR', amount: 0, unpricedCalls: 2, unpricedModels: ['small-model'] });
    const none = await agent('model: { provider: fake, name: small-model }\n').handle('c', 'Where is ORD-1002?');
    expect(none.turns[0]).not.toHaveProperty('cost');
  });

  it('counts a call with a token count ≥ 2^53 − 1 apart too: its cost is unknown, not the bill of 2^53 − 1 tokens', async () => {
    const envelope = await agent(PRICED, 1e308).handle('c', 'Where is ORD-1002?');
    // Only the reply is priced: 2000 × 1 + 100 × 2 per million = 0.0022
    expect(envelope.turns[0]?.cost).toEqual({ currency: 'EUR', amount: 0.0022, unpricedCalls: 0, uncountedCalls: 1 });
  });

  it('a bad price table in the YAML config names the file, the line and the key', () => {
    expect(() => parseHostConfig(PRICED.replace('input: 1', 'input: -1'), 'agent.yaml')).toThrow(
      /agent\.yaml:5:\d+: prices\.models\.small-model\.input: expected a price per million tokens, a number ≥ 0, got -1/,
    );
  });
});
