/**
 * OpenAI models sometimes call an undeclared `multi_tool_use.parallel` (or
 * `parallel`) function whose arguments wrap several real calls:
 * `{"tool_uses":[{"recipient_name":"functions.weather","parameters":{...}}]}`.
 * Executing the wrapper would fail; the calls inside are what the model meant.
 * Unwrapped calls get ids `<wrapper id>_<n>` so each can carry its own result.
 */
import type { ToolCall } from '../../src/kernel/index.ts';

const WRAPPER_NAMES = new Set(['multi_tool_use.parallel', 'parallel']);

export function unwrapParallelCalls(call: ToolCall, declaredTools: readonly string[]): ToolCall[] {
  if (!WRAPPER_NAMES.has(call.name) || declaredTools.includes(call.name)) return [call];
  const args = call.args as { tool_uses?: unknown } | null;
  if (typeof args !== 'object' || args === null || !Array.isArray(args.tool_uses) || args.tool_uses.length === 0) return [call];
  const out: ToolCall[] = [];
  for (const [i, use] of args.tool_uses.entries()) {
    if (typeof use !== 'object' || use === null) return [call];
    const { recipient_name: recipient, parameters } = use as { recipient_name?: unknown; parameters?: unknown };
    if (typeof recipient !== 'string' || recipient === '') return [call];
    const name = recipient.startsWith('functions.') ? recipient.slice('functions.'.length) : recipient;
    const params = parameters === undefined ? {} : parameters;
    out.push({ id: `${call.id}_${i}`, name, args: params, rawArgs: JSON.stringify(params) });
  }
  return out;
}
