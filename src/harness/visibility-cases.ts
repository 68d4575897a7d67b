/**
 * Explaining a hidden tool as a case of `loopgate run`: `contract:visibility/<id>`.
 *
 * `resolveVisibility(names, layers).explain(name)` is public (the package's
 * index exports it): a team shows it to say why its agent cannot see a tool.
 * Inside the loop only a deny's rule reaches the policy record (an allow list
 * that left a name out is recorded as "not in allow list"), so no scenario can
 * check what `explain` says for an allow list: this case asks it.
 *
 * `standardLayers` is public as well: a team builds its three conventional layers
 * with it, and `explain` then names them. The host builds only `global` and a
 * named mode, so no scenario sees the name of an unnamed mode or sub-agent layer
 * (mutation seed 25: an unnamed sub-agent layer's name `subagent` lost):
 * `contract:visibility/standard-layers-named` asks.
 */
import { resolveVisibility, standardLayers, type HiddenReason, type VisibilityLayer } from '../kernel/index.ts';
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

function standardLayerNames(): CheckResult[] {
  const names = ['search_docs', 'delete_repo', 'send_email', 'post_chat'];
  const build = (modeName?: string, subAgentName?: string) =>
    standardLayers({
      global: { deny: ['delete_*'] },
      mode: { allow: ['search_*', 'send_*', 'post_*'], ...(modeName ? { name: modeName } : {}) },
      subAgent: { deny: ['send_*', 'post_*'], ...(subAgentName ? { name: subAgentName } : {}) },
    });
  const rows: [string, string, string][] = [
    ['unnamed', JSON.stringify(build().map((l) => l.name)), '["global","mode","subagent"]'],
    ['named', JSON.stringify(build('research', 'triage').map((l) => l.name)), '["global","mode:research","subagent:triage"]'],
    ['explain (unnamed)', JSON.stringify(resolveVisibility(names, build()).explain('send_email')), '{"layer":"subagent","reason":"denied","rule":"send_*"}'],
    [
      'explain (named)',
      JSON.stringify(resolveVisibility(names, build('research', 'triage')).explain('post_chat')),
      '{"layer":"subagent:triage","reason":"denied","rule":"post_*"}',
    ],
  ];
  return rows.map(([name, actual, expected]) => ({
    name: `layers ${name}`,
    passed: actual === expected,
    message: actual === expected ? actual : `expected ${expected}, got ${actual}`,
    expected,
    actual,
  }));
}

/**
 * Layers whose allow or deny list holds something that is no tool name (an empty string, a number): refused when the
 * visibility is built, naming the layer and the list, instead of a pattern that matches nothing (an allow list of `''`
 * hides every tool without a word; a deny of `7` denies nothing). Mutation seed 52: the test of each item made
 * `() => undefined`, and every such list was taken.
 */
function badListsRefused(): CheckResult[] {
  const names = ['search_docs', 'delete_repo'];
  const rows: [string, unknown, string][] = [
    [
      'an empty allow pattern',
      { name: 'mode:research', allow: ['search_*', ''] },
      'visibility layer "mode:research": allow must be a list of non-empty tool names or patterns',
    ],
    ['a number in a deny list', { name: 'global', deny: [7] }, 'visibility layer "global": deny must be a list of non-empty tool names or patterns'],
  ];
  return rows.map(([what, layer, expected]) => {
    let actual: string;
    try {
      resolveVisibility(names, [layer as VisibilityLayer]);
      actual = 'taken';
    } catch (error) {
      actual = (error as Error).message;
    }
    return {
      name: `${what} refused`,
      passed: actual === expected,
      message: actual === expected ? actual : `expected ${expected}, got ${actual}`,
      expected,
      actual,
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
    checksCase(
      {
        id: 'contract:visibility/standard-layers-named',
        title: 'visibility: standardLayers names its layers global, mode[:name] and subagent[:name], and explain reads those names',
        file: 'src/harness/visibility-cases.ts',
      },
      standardLayerNames,
    ),
    checksCase(
      {
        id: 'contract:visibility/bad-lists-refused',
        title: 'visibility: a layer whose allow or deny list holds an empty string or a non-string is refused, naming the layer and the list',
        file: 'src/harness/visibility-cases.ts',
      },
      badListsRefused,
    ),
  ];
}
