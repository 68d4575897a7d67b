import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { resolveVisibility, standardLayers, type VisibilityLayer } from './visibility.ts';

const ALL = ['read_file', 'write_file', 'delete_file', 'search', 'send_email'];

describe('resolveVisibility', () => {
  it('shows everything with no layers, in the given order', () => {
    expect(resolveVisibility(ALL, []).visible).toEqual(ALL);
  });

  it('narrows by intersecting allow lists', () => {
    const v = resolveVisibility(ALL, [
      { name: 'global', allow: ['read_file', 'write_file', 'search'] },
      { name: 'mode:research', allow: ['read_file', 'search', 'send_email'] },
    ]);
    expect(v.visible).toEqual(['read_file', 'search']);
    // send_email was left out by the global allow list; the mode's allow cannot add it back.
    expect(v.explain('send_email')).toEqual({ layer: 'global', reason: 'not_allowed', rule: 'allow' });
  });

  it('never lets a later layer lift a deny (invariant 7)', () => {
    const v = resolveVisibility(ALL, [
      { name: 'global', deny: ['delete_file'] },
      { name: 'mode:admin', allow: ['delete_file', 'read_file'] },
      { name: 'subagent:cleanup', allow: ['delete_file'] },
    ]);
    expect(v.isVisible('delete_file')).toBe(false);
    expect(v.visible).not.toContain('delete_file');
    expect(v.explain('delete_file')).toEqual({ layer: 'global', reason: 'denied', rule: 'delete_file' });
  });

  it('applies deny patterns and reports the pattern that matched', () => {
    const v = resolveVisibility(ALL, [{ name: 'mode:readonly', deny: ['write_*', 'delete_*'] }]);
    expect(v.visible).toEqual(['read_file', 'search', 'send_email']);
    expect(v.explain('delete_file')).toEqual({ layer: 'mode:readonly', reason: 'denied', rule: 'delete_*' });
    expect(v.explain('read_file')).toBeUndefined();
  });

  it('treats an empty allow list as "nothing"', () => {
    expect(resolveVisibility(ALL, [{ name: 'subagent', allow: [] }]).visible).toEqual([]);
  });

  it('explains names it was not given', () => {
    const v = resolveVisibility(ALL, [{ name: 'global', allow: ['search'] }]);
    expect(v.explain('not_a_tool')).toEqual({ layer: 'global', reason: 'not_allowed', rule: 'allow' });
  });

  it('refuses malformed layers with the layer name', () => {
    expect(() => resolveVisibility(ALL, [{ name: '' }])).toThrow(/layer #0: name/);
    expect(() => resolveVisibility(ALL, [{ name: 'mode', deny: [''] }])).toThrow(/"mode": deny must be a list/);
    expect(() => resolveVisibility(ALL, [{ name: 'mode', allow: 'search' as never }])).toThrow(/"mode": allow must be a list/);
  });

  it('property: a name denied by any layer is hidden, whatever the other layers say', () => {
    const names = fc.constantFrom(...ALL);
    const layer = fc.record(
      {
        name: fc.constantFrom('global', 'mode', 'subagent'),
        allow: fc.array(names, { maxLength: 5 }),
        deny: fc.array(names, { maxLength: 2 }),
      },
      { requiredKeys: ['name'] },
    );
    fc.assert(
      fc.property(fc.array(layer, { maxLength: 4 }), (layers: VisibilityLayer[]) => {
        const v = resolveVisibility(ALL, layers);
        for (const l of layers) for (const denied of l.deny ?? []) expect(v.isVisible(denied)).toBe(false);
        // And visible ⊆ every allow list.
        for (const l of layers) if (l.allow) for (const name of v.visible) expect(l.allow).toContain(name);
      }),
      { numRuns: 500 },
    );
  });
});

describe('standardLayers', () => {
  it('builds global → mode → sub-agent, skipping absent ones', () => {
    expect(standardLayers({ global: { deny: ['a'] }, subAgent: { name: 'triage', allow: ['b'] } })).toEqual([
      { name: 'global', deny: ['a'] },
      { name: 'subagent:triage', allow: ['b'] },
    ]);
    expect(standardLayers({ mode: { name: 'research', allow: ['x'] } })).toEqual([{ name: 'mode:research', allow: ['x'] }]);
  });
});
