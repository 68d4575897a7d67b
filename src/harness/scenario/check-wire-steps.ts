/**
 * A wire provider's script may hold only what the provider's protocol can say:
 * OpenAI reports no cache writes, the Messages API has no content-filter stop,
 * and so on. Each step is written as its wire fake would write it when the file
 * is checked, so such a step is an input error naming its place — not a case
 * that throws when it runs (outside probe 13, C1). The schema refuses what is
 * the loop's own (`reject`, `ignoresTimeout`, the loop's error kinds) already.
 */
import { readFileSync } from 'node:fs';
import { locateInYaml } from '../../yaml/locate.ts';
import { unsayableOnWire } from '../wire-provider.ts';
import type { LoadedScenario } from './load.ts';

const RESULTS = ['reply', 'tool_use', 'max_tokens', 'refusal', 'overflow', 'unknown', 'error'] as const;

/** One line per step the provider cannot say, `file:line:column: provider.<list>[i]: …` (empty when none). */
export function wireStepProblems(loaded: readonly LoadedScenario[]): string[] {
  const problems: string[] = [];
  for (const l of loaded) {
    const provider = l.scenario.provider;
    if (provider.kind !== 'wire' || provider.provider === undefined) continue;
    let text: string | undefined;
    for (const list of ['script', 'fallback'] as const) {
      provider[list]?.forEach((step, i) => {
        // A step the schema refused for the loop's own reasons has no wire form to try.
        if (step.reject !== undefined || step.ignoresTimeout || step.error?.kind === 'invalid_request' || step.error?.kind === 'aborted') return;
        if (RESULTS.filter((k) => step[k] !== undefined).length !== 1) return;
        const why = unsayableOnWire(provider.provider!, step, i);
        if (why === undefined) return;
        text ??= readText(l.file);
        const { line, column } = text ? locateInYaml(text, ['provider', list, i]) : { line: 1, column: 1 };
        problems.push(`${l.file}:${line}:${column}: provider.${list}[${i}]: ${provider.provider} cannot say this step: ${why}`);
      });
    }
  }
  return problems;
}

function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return ''; // the position is a courtesy
  }
}
