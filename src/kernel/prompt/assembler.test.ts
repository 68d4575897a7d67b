import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { PRIORITY, PromptAssembler, PromptFragmentError } from './assembler.ts';

describe('PromptAssembler', () => {
  it('orders by priority (smaller first), whatever the registration order, joined by blank lines', () => {
    const p = new PromptAssembler();
    p.register({ id: 'tools', priority: PRIORITY.toolGuidance, text: 'Use tools carefully.' });
    p.register({ id: 'deploy', priority: PRIORITY.deployment, text: 'You work for ACME.' });
    p.register({ id: 'identity', priority: PRIORITY.identity, text: 'You are Loop.' });
    expect(p.assemble()).toEqual({
      system: 'You are Loop.\n\nYou work for ACME.\n\nUse tools carefully.',
      fragments: [
        { id: 'identity', priority: -100 },
        { id: 'deploy', priority: 0 },
        { id: 'tools', priority: 100 },
      ],
      dropped: [],
      errors: [],
    });
  });

  it('property: the assembled order depends only on priorities (ties by registration order)', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: -200, max: 200 }), { minLength: 1, maxLength: 8 }), (priorities) => {
        const forward = new PromptAssembler();
        const backward = new PromptAssembler();
        for (const pr of priorities) forward.register({ id: `f${pr}`, priority: pr, text: `t${pr}` });
        for (const pr of [...priorities].reverse()) backward.register({ id: `f${pr}`, priority: pr, text: `t${pr}` });
        expect(forward.assemble().system).toBe(backward.assemble().system);
        expect(forward.assemble().fragments.map((f) => f.priority)).toEqual([...priorities].sort((a, b) => a - b));
      }),
    );
  });

  it('breaks priority ties by registration order', () => {
    const p = new PromptAssembler();
    p.register({ id: 'b', priority: 100, text: 'B' });
    p.register({ id: 'a', priority: 100, text: 'A' });
    expect(p.assemble().system).toBe('B\n\nA');
  });

  it('calls dynamic fragments at every assembly', () => {
    const p = new PromptAssembler();
    let cwd = '/home/a';
    p.register({ id: 'cwd', priority: 50, text: () => `Working directory: ${cwd}` });
    expect(p.assemble().system).toBe('Working directory: /home/a');
    cwd = '/home/b';
    expect(p.assemble().system).toBe('Working directory: /home/b');
  });

  it('skips empty and whitespace-only fragments, also in the recorded list', () => {
    const p = new PromptAssembler();
    p.register({ id: 'a', priority: 0, text: 'A' });
    p.register({ id: 'todo', priority: 10, text: () => '' });
    p.register({ id: 'blank', priority: 20, text: '  \n' });
    p.register({ id: 'c', priority: 30, text: 'C' });
    const r = p.assemble();
    expect(r.system).toBe('A\n\nC');
    expect(r.fragments.map((f) => f.id)).toEqual(['a', 'c']);
  });

  it('unregister removes the fragment, is idempotent, and never removes a later registration of the same id', () => {
    const p = new PromptAssembler();
    const off = p.register({ id: 'plugin', priority: 0, text: 'old' });
    off();
    off();
    expect(p.assemble().system).toBe('');
    p.register({ id: 'plugin', priority: 0, text: 'new' });
    off(); // the stale handle
    expect(p.assemble().system).toBe('new');
  });

  it('refuses a duplicate id while the first is registered', () => {
    const p = new PromptAssembler();
    p.register({ id: 'x', priority: 0, text: 'a' });
    expect(() => p.register({ id: 'x', priority: 1, text: 'b' })).toThrow(PromptFragmentError);
    expect(() => p.register({ id: 'x', priority: 1, text: 'b' })).toThrow(/"x" is already registered/);
    expect(p.assemble().system).toBe('a');
  });

  it('an exclusive fragment drops every fragment after it in priority order', () => {
    const p = new PromptAssembler();
    p.register({ id: 'tools', priority: 100, text: 'tool guidance' });
    p.register({ id: 'identity', priority: -100, text: 'identity' });
    p.register({ id: 'eval', priority: 0, text: 'exactly this prompt', exclusive: true });
    p.register({ id: 'late', priority: 0, text: 'same priority, registered later' });
    const r = p.assemble();
    expect(r.system).toBe('identity\n\nexactly this prompt');
    expect(r.dropped).toEqual(['late', 'tools']);
    const off = p.register({ id: 'more', priority: 500, text: 'ignored' });
    expect(p.assemble().system).toBe('identity\n\nexactly this prompt');
    off();
  });

  it('the take-over ends when the exclusive fragment is unregistered', () => {
    const p = new PromptAssembler();
    p.register({ id: 'a', priority: 10, text: 'A' });
    const off = p.register({ id: 'only', priority: 0, text: 'ONLY', exclusive: true });
    expect(p.assemble().system).toBe('ONLY');
    off();
    expect(p.assemble().system).toBe('A');
  });

  it('an exclusive fragment whose text is blank takes nothing over (a dynamic take-over that is off for now)', () => {
    const p = new PromptAssembler();
    let freeze = '';
    p.register({ id: 'guidance', priority: 100, text: 'guidance' });
    p.register({ id: 'freeze', priority: 0, text: () => freeze, exclusive: true });
    expect(p.assemble()).toMatchObject({ system: 'guidance', dropped: [] });
    freeze = 'Code freeze.';
    expect(p.assemble()).toMatchObject({ system: 'Code freeze.', dropped: ['guidance'] });
    p.register({ id: 'blank', priority: -10, text: '  ', exclusive: true });
    expect(p.assemble()).toMatchObject({ system: 'Code freeze.', dropped: ['guidance'] });
  });

  it('a throwing or non-text dynamic fragment is left out and reported, and assembly goes on', () => {
    const p = new PromptAssembler();
    p.register({ id: 'a', priority: 0, text: 'A' });
    p.register({
      id: 'broken',
      priority: 10,
      text: () => {
        throw new Error('todo store offline');
      },
    });
    p.register({ id: 'weird', priority: 20, text: (() => 42) as unknown as () => string });
    p.register({ id: 'c', priority: 30, text: 'C' });
    const r = p.assemble();
    expect(r.system).toBe('A\n\nC');
    expect(r.errors).toEqual([
      { id: 'broken', message: 'dynamic fragment threw: todo store offline' },
      { id: 'weird', message: 'dynamic fragment returned number, not text' },
    ]);
  });

  it('refuses malformed fragments, naming the field', () => {
    const p = new PromptAssembler();
    expect(() => p.register({ id: '', priority: 0, text: 'a' })).toThrow(/id must be a non-empty string/);
    expect(() => p.register({ id: 'x', priority: Number.NaN, text: 'a' })).toThrow(/"x": priority must be a finite number/);
    expect(() => p.register({ id: 'x', priority: 0, text: 5 as never })).toThrow(/"x": text must be/);
    expect(() => p.register({ id: 'x', priority: 0, text: 'a', exclusive: 'yes' as never })).toThrow(/"x": exclusive must be a boolean/);
    expect(p.ids()).toEqual([]);
  });

  it('copies the fragment: changing the object afterwards changes nothing', () => {
    const p = new PromptAssembler();
    const fragment = { id: 'x', priority: 0, text: 'before' };
    p.register(fragment);
    fragment.text = 'after';
    expect(p.assemble().system).toBe('before');
  });
});
