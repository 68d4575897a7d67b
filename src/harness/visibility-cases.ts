/**
 * Explaining a hidden tool as a case of `loopgate run`: `contract:visibility/<id>`.
 *
 * `resolveVisibility(names, layers).explain(name)` is public (the package's
 * index exports it): a team shows it to say why its agent cannot see a tool.
 * Inside the loop only a deny's rule reaches the policy record (an allow list
 * that left a name out is recorded as "not in allow list"), so no scenario can
 * check what `explain` says for an allow list: this case asks it.
 */
import { resolveVisibility, type HiddenReason } from '../kernel/index.ts';
import type { CheckResult } from '../report/results.ts';
import { checksCase, type Case } from './cases.ts';

function explains(): CheckResult[] {
  const visibility = resolveVisibility(
    ['search_docs', 'delete_repo', 'send_email'],
    [
      { name: 'global', deny: ['delete_*'] },
      { name: 'mode:research', allow: ['search_*'] },
    ],
  );
  const rows: [string, HiddenReason | undefined][] = [
    ['search_docs', undefined],
    ['delete_repo', { layer: 'global', reason: 'denied', rule: 'delete_*' }],
    ['send_email', { layer: 'mode:research', reason: 'not_allowed', rule: 'allow' }],
  ];
  return rows.map(([name, expected]) => {
    const actual = visibility.explain(name);
    const passed = JSON.stringify(actual) === JSON.stringify(expected);
    return {
      name: `explain("${name}")`,
      passed,
      message: passed
        ? `${JSON.stringify(expected) ?? 'visible'}`
        : `expected ${JSON.stringify(expected) ?? 'undefined'}, got ${JSON.stringify(actual) ?? 'undefined'}`,
      expected: JSON.stringify(expected) ?? 'undefined',
      actual: JSON.stringify(actual) ?? 'undefined',
    };
  });
}

export function visibilityCases(): Case[] {
  return [
    checksCase(
      {
        id: 'contract:visibility/explain-names-layer-and-rule',
        title: 'visibility: explain names the layer and rule that hid a tool (the deny pattern, or `allow` for an allow list that left it out)',
        file: 'src/harness/visibility-cases.ts',
      },
      explains,
    ),
  ];
}
