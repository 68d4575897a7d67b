/**
 * The config's tool lists fail closed: a name that matches no registered tool is a
 * ConfigError (an InputError: the CLI exits 2) naming the file, the line, the key
 * and the closest registered name — never a deny list that silently denies nothing.
 */
import { describe, expect, it } from 'vitest';
import { reply } from '../../providers/fake/results.ts';
import { ScriptedModelClient } from '../../providers/fake/scripted.ts';
import { SupportBackend } from '../../scenarios/example-agent/backend.ts';
import { supportTools } from '../../scenarios/example-agent/tools.ts';
import { InputError } from '../kernel/index.ts';
import { MemoryEventStore } from '../stores/memory-store.ts';
import { ConfigError, parseHostConfig } from './config.ts';
import { AgentHost } from './host.ts';
import { closestName, editDistance } from '../kernel/index.ts';

const tools = supportTools(new SupportBackend());
const names = tools.map((t) => t.name);

function build(yaml: string) {
  return new AgentHost({ config: parseHostConfig(yaml, 'agent.yaml'), store: new MemoryEventStore(), model: new ScriptedModelClient([]), tools });
}

function errorOf(yaml: string): Error {
  try {
    build(yaml);
  } catch (error) {
    return error as Error;
  }
  throw new Error(`no error for:\n${yaml}`);
}

describe('config tool names fail closed', () => {
  it('the example agent registers issue_refund (the names below are typos of real tools)', () => {
    expect(names).toContain('issue_refund');
    expect(names).toContain('lookup_order');
  });

  it('a misspelled name in tools.deny is a ConfigError (an InputError) naming file, line, key and the closest tool', () => {
    const error = errorOf('tools:\n  deny:\n    - lookup_order\n    - isue_refund\n');
    expect(error).toBeInstanceOf(ConfigError);
    expect(error).toBeInstanceOf(InputError);
    expect(error.message).toMatch(
      /agent\.yaml:4:7: tools\.deny\[1\]: "isue_refund" is not a registered tool \(registered: [a-z_, ]+\); did you mean "issue_refund"\?/,
    );
    expect(error.message).not.toMatch(/tools\.deny\[0\]/); // lookup_order is fine
  });

  it('names every bad entry of tools.ask, tools.allow and the modes at once', () => {
    const error = errorOf(
      [
        'tools:',
        '  allow: [lookup_order, issue_refund, lookup_ordr]',
        '  ask: [issue-refund]',
        '  modes:',
        '    research:',
        '      allow: [lookup_*]',
        '      deny: [refund_*]',
        '  mode: research',
        '',
      ].join('\n'),
    );
    expect(error.message).toMatch(
      /agent\.yaml:2:\d+: tools\.allow\[2\]: "lookup_ordr" is not a registered tool \(registered: [a-z_, ]+\); did you mean "lookup_order"\?/,
    );
    expect(error.message).toMatch(
      /agent\.yaml:3:\d+: tools\.ask\[0\]: "issue-refund" is not a registered tool \(registered: [a-z_, ]+\); did you mean "issue_refund"\?/,
    );
    expect(error.message).toMatch(/agent\.yaml:7:\d+: tools\.modes\.research\.deny\[0\]: pattern "refund_\*" matches no registered tool/);
    expect(error.message).not.toMatch(/lookup_\*/); // a pattern that matches a tool is fine
  });

  it('accepts registered names and patterns that match one', () => {
    expect(() => build('tools:\n  deny: [issue_refund]\n  ask: ["*refund*"]\n  allow: ["*"]\n')).not.toThrow();
  });

  it('a name in a deny list with no tools registered at all is refused too', () => {
    const create = () =>
      new AgentHost({
        config: parseHostConfig('tools:\n  deny: [issue_refund]\n', 'agent.yaml'),
        store: new MemoryEventStore(),
        model: new ScriptedModelClient([]),
      });
    expect(create).toThrow(/registered: none: the host was given no tools/);
    expect(create).toThrow(/agent\.yaml:2:\d+: tools\.deny\[0\]: "issue_refund" is not a registered tool/);
  });

  it("tools.mode must be one of the config's own modes: toString is not a mode", () => {
    const error = errorOf('tools:\n  mode: toString\n');
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toMatch(/agent\.yaml:2:9: tools\.mode: "toString" is not one of tools\.modes \(none defined\)/);
    expect(errorOf('tools:\n  modes:\n    research: {deny: [issue_refund]}\n  mode: reserch\n').message).toMatch(/did you mean "research"\?/);
  });

  it("the agent's own rules and layers fail closed too: the host is not built", () => {
    const create = (agent: ConstructorParameters<typeof AgentHost>[0]['agent']) => () =>
      new AgentHost({ config: parseHostConfig('{}', 'agent.yaml'), store: new MemoryEventStore(), model: new ScriptedModelClient([]), agent });
    expect(create({ tools, visibility: [{ name: 'global', deny: ['isue_refund'] }] })).toThrow(
      /visibility layer "global": deny\[0\]: "isue_refund" is not a registered tool; did you mean "issue_refund"\?/,
    );
    expect(create({ tools, policy: { rules: [{ id: 'refunds', tools: ['issue_refnd'], decision: 'ask' }] } })).toThrow(
      /policy rule "refunds": tools\[0\]: "issue_refnd" .*did you mean "issue_refund"\?/,
    );
    expect(create({ tools, visibility: [{ name: 'global', deny: ['issue_refund'] }] })).not.toThrow();
  });

  it('a correctly spelled deny still hides the tool from the model', async () => {
    const model = new ScriptedModelClient([reply('ok')]);
    const host = new AgentHost({ config: parseHostConfig('tools:\n  deny: [issue_refund]\n', 'agent.yaml'), store: new MemoryEventStore(), model, tools });
    await host.handle('c', 'hi');
    expect(model.requests[0]!.tools.map((t) => t.name)).not.toContain('issue_refund');
    expect(model.requests[0]!.tools.map((t) => t.name)).toContain('lookup_order');
    await host.close();
  });
});

describe('closest name', () => {
  it('measures typos: a swap, a missing letter, a changed separator', () => {
    expect(editDistance('isue_refund', 'issue_refund')).toBe(1);
    expect(editDistance('issue-refund', 'issue_refund')).toBe(1);
    expect(editDistance('isuse_refund', 'issue_refund')).toBe(1); // neighbours swapped
    expect(editDistance('', 'abc')).toBe(3);
  });
  it('suggests only what is near enough to be a typo', () => {
    expect(closestName('isue_refund', names)).toBe('issue_refund');
    expect(closestName('weather', names)).toBeUndefined();
    expect(closestName('x', [])).toBeUndefined();
  });
});
