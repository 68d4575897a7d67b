import { describe, expect, it } from 'vitest';
import { unwrapParallelCalls } from './parallel-wrapper.ts';

const wrapper = (args: unknown, name = 'multi_tool_use.parallel') => ({ id: 'call_p', name, args });

describe('unwrapParallelCalls', () => {
  it('unwraps the calls inside an undeclared wrapper, in order, with derived ids', () => {
    const call = wrapper({
      tool_uses: [
        { recipient_name: 'functions.weather', parameters: { city: 'Paris' } },
        { recipient_name: 'cityAttractions', parameters: { city: 'Rome' } },
        { recipient_name: 'functions.now' },
      ],
    });
    expect(unwrapParallelCalls(call, ['weather'])).toEqual([
      { id: 'call_p_0', name: 'weather', args: { city: 'Paris' }, rawArgs: '{"city":"Paris"}' },
      { id: 'call_p_1', name: 'cityAttractions', args: { city: 'Rome' }, rawArgs: '{"city":"Rome"}' },
      { id: 'call_p_2', name: 'now', args: {}, rawArgs: '{}' },
    ]);
  });

  it('leaves a declared tool, other names and odd shapes alone', () => {
    const inner = { tool_uses: [{ recipient_name: 'functions.x', parameters: {} }] };
    expect(unwrapParallelCalls(wrapper(inner, 'parallel'), ['parallel'])).toHaveLength(1);
    expect(unwrapParallelCalls(wrapper(inner, 'other'), [])).toEqual([wrapper(inner, 'other')]);
    expect(unwrapParallelCalls(wrapper({ tool_uses: [] }), [])).toHaveLength(1);
    expect(unwrapParallelCalls(wrapper({ tool_uses: [{ parameters: {} }] }), [])).toEqual([wrapper({ tool_uses: [{ parameters: {} }] })]);
    expect(unwrapParallelCalls(wrapper('text'), [])).toEqual([wrapper('text')]);
  });
});
