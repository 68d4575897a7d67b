/**
 * Before anything runs: every `assertion:` a scenario names is a predicate of
 * the config, every rubric has a judge (its own script, one the config names,
 * or the config's default), and a judge that calls a real provider grades only
 * live scenarios (the gate stays offline). A problem is a file error naming the
 * file, the line and the field.
 */
import { readFileSync } from 'node:fs';
import { locateInYaml } from '../../yaml/locate.ts';
import { isProviderJudge, type ReplyAssertionContext } from '../checks/reply-assertion-types.ts';
import { judgeNameOf } from '../judge/judge-client.ts';
import { ScenarioFileError, type LoadedScenario } from './load.ts';

export function checkReplyAssertionNames(loaded: readonly LoadedScenario[], context: ReplyAssertionContext): void {
  const problems = replyAssertionNameProblems(loaded, context);
  if (problems.length > 0) throw new ScenarioFileError(problems.join('\n'));
}

/** What checkReplyAssertionNames refuses, one line each (empty when nothing). */
export function replyAssertionNameProblems(loaded: readonly LoadedScenario[], context: ReplyAssertionContext): string[] {
  const problems: string[] = [];
  for (const l of loaded) {
    const assertions = l.scenario.expect.assert ?? [];
    let text: string | undefined;
    const at = (path: (string | number)[]) => {
      try {
        text ??= readFileSync(l.file, 'utf8');
      } catch {
        text = ''; // the position is a courtesy
      }
      const { line, column } = text ? locateInYaml(text, path) : { line: 1, column: 1 };
      return `${l.file}:${line}:${column}`;
    };
    for (const [i, a] of assertions.entries()) {
      const field = `expect.assert[${i}]`;
      if (a.assertion !== undefined && !context.predicates.has(a.assertion)) {
        const known = [...context.predicates.keys()];
        problems.push(
          `${at(['expect', 'assert', i, 'assertion'])}: ${field}.assertion: no assertion ${JSON.stringify(a.assertion)} in the config; defined: ${known.join(', ') || 'none (add assertions: { NAME: (reply, run) => true | "why not" } to loopgate.config.ts)'}`,
        );
      }
      if (a.rubric === undefined || typeof a.judge === 'object') continue;
      const name = judgeNameOf(a, context);
      const judges = [...context.judges.keys()];
      if (name === undefined) {
        problems.push(
          `${at(['expect', 'assert', i, 'rubric'])}: ${field}.rubric: no judge: ${judges.length === 0 ? 'the config has no judges (add judges: { NAME: … } to loopgate.config.ts), or give the scenario its own judge: { script: … }' : `name one with judge: (${judges.join(', ')}), or set defaultJudge in the config`}`,
        );
        continue;
      }
      const spec = context.judges.get(name);
      const where = a.judge !== undefined ? at(['expect', 'assert', i, 'judge']) : at(['expect', 'assert', i, 'rubric']);
      if (!spec) {
        problems.push(`${where}: ${field}.judge: no judge ${JSON.stringify(name)} in the config; defined: ${judges.join(', ') || 'none'}`);
      } else if (isProviderJudge(spec) && !l.scenario.live) {
        problems.push(
          `${where}: ${field}.judge: judge ${name} calls ${spec.provider} (${spec.model}), so it grades only live scenarios (live:, run with --live); give this scenario a scripted judge, judge: { script: … }`,
        );
      }
    }
  }
  return problems;
}
