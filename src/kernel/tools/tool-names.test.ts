/**
 * The tool pipeline is never built from a policy rule or visibility layer that
 * names no registered tool: such a name would silently deny (or allow) nothing —
 * `deny: ['admin_rest']` would leave admin_reset visible. Fail closed, naming
 * the rule or layer, the list, the position and the closest tool.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createRedactor } from '../redact/index.ts';
import { agentTools } from '../loop/deps.ts';
import { defineTool } from './define-tool.ts';
import { createToolExecutor, type ToolExecutorOptions } from './pipeline.ts';
import { ToolRegistry } from './registry.ts';
import { ToolNameError, toolNameProblems, unmatchedToolName } from './tool-names.ts';

const tool = (name: string) => defineTool({ name, description: name, input: z.object({}), sideEffect: 'NONE', run: () => ({}) });
const registry = new ToolRegistry([tool('get_balance'), tool('transfer_funds'), tool('admin_reset')]);
const build = (options: Partial<ToolExecutorOptions>) => () => createToolExecutor({ registry, ...options });

describe('tool names in policy rules and visibility layers fail closed', () => {
  it('a misspelled deny is refused, naming the layer, the list, the position and the tool meant', () => {
    const make = build({ visibility: [{ name: 'global', deny: ['admin_rest'] }] });
    expect(make).toThrow(ToolNameError);
    expect(make).toThrow(/^visibility layer "global": deny\[0\]: "admin_rest" is not a registered tool; did you mean "admin_reset"\?$/);
  });

  it('a misspelled policy rule, an allow list and a pattern that matches nothing: every one named, one line each', () => {
    let error: ToolNameError | undefined;
    try {
      build({
        policy: {
          rules: [
            { id: 'no-transfers', tools: ['transfer_funds', 'transfer_fund'], decision: 'deny' },
            { id: 'x', decision: 'ask' },
          ],
        },
        visibility: [{ name: 'mode:read', allow: ['get_*', 'balance_*'] }],
      })();
    } catch (e) {
      error = e as ToolNameError;
    }
    expect(error?.problems.map((p) => p.message)).toEqual([
      'policy rule "no-transfers": tools[1]: "transfer_fund" is not a registered tool; did you mean "transfer_funds"?',
      'visibility layer "mode:read": allow[1]: pattern "balance_*" matches no registered tool',
    ]);
    expect(error?.message.split('\n')).toHaveLength(2);
  });

  it('registered names and patterns that match one are accepted; a rule without tools means every tool', () => {
    expect(
      build({
        policy: {
          rules: [
            { id: 'a', tools: ['transfer_*', 'get_balance'], decision: 'ask' },
            { id: 'b', decision: 'allow' },
          ],
        },
        visibility: [{ name: 'global', deny: ['admin_reset'], allow: ['*'] }],
      }),
    ).not.toThrow();
  });

  it('an agent built into a pipeline (what every host does) is refused the same way', () => {
    const agent = { tools: [tool('get_balance')], policy: { rules: [{ id: 'r', tools: ['get_balanse'], decision: 'deny' as const }] } };
    expect(() => agentTools(agent, createRedactor())).toThrow(/policy rule "r": tools\[0\]: "get_balanse" .*did you mean "get_balance"\?/);
  });

  it('with no tools registered, every name is refused (there is nothing it could name)', () => {
    expect(toolNameProblems([], {}, [{ name: 'global', deny: ['*'] }]).map((p) => p.where)).toEqual(['visibility layer "global": deny[0]']);
    expect(unmatchedToolName('x', [], 'tool of agent shop')).toBe('"x" is not a tool of agent shop');
  });
});
