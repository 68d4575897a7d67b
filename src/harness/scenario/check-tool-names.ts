/**
 * Every tool name a scenario writes must name a tool, or the gate checks nothing
 * and says it passed: `executions: { transfer_fund: 0 }` holds whatever
 * transfer_funds does, a deny of `close_acount` hides nothing, a `toolStart`
 * trigger on a misspelled tool never fires, and a `tools:` entry naming no tool
 * quietly declares a stub while the real tool runs unscripted.
 *
 * - a `tools:` entry names one of the agent's tools, or declares a new one (it
 *   has a `description`);
 * - policy rules and visibility layers name the agent's or the scenario's tools
 *   (or a `*` pattern matching one), as the kernel requires of every pipeline;
 * - the operator's settings ask for no tool they deny or leave out of their allow
 *   list, as the production host requires of its config;
 * - an `at: { toolStart }` trigger names one of those tools, and so does a
 *   stream cut inside a call's arguments (`error.midStream: { tool_args }`);
 * - expectations about tools, the case's and a bystander's (`executions`, `toolCalls`, `toolResults` — also per
 *   turn — and `policy`) name one of those tools, or a tool the scripted model
 *   calls (a call to a tool nobody has is refused, and that is worth asserting).
 *
 * Each problem comes with its place in the file and the closest name.
 */
import { didYouMean, unmatchedToolName, type AnyToolDeclaration } from '../../kernel/index.ts';
import { voidAsks } from '../../host/denied-and-asked.ts';
import type { Scenario } from './schema.ts';

export interface ToolNameProblem {
  /** Where in the file (for locateInYaml: a turn number as a number). */
  readonly path: readonly (string | number)[];
  /** The field as the message names it, e.g. `expect.turns.0.toolResults[1].tool`. */
  readonly field: string;
  readonly message: string;
}

export function scenarioToolNameProblems(scenario: Scenario, own: readonly AnyToolDeclaration[], agent: string): ToolNameProblem[] {
  const problems: ToolNameProblem[] = [];
  const add = (path: readonly (string | number)[], message: string) => problems.push({ path: locatable(path), field: field(path), message });
  const ownNames = own.map((t) => t.name);
  const declared: string[] = [];
  scenario.tools.forEach((entry, i) => {
    if (ownNames.includes(entry.name)) return;
    if (entry.description !== undefined) declared.push(entry.name);
    else
      add(
        ['tools', i, 'name'],
        `"${entry.name}" is not a tool of agent ${agent}, and without a description this entry declares no new one${didYouMean(entry.name, ownNames)}`,
      );
  });

  const tools = [...ownNames, ...declared];
  const what = `tool of agent ${agent} or of this scenario`;
  const pattern = (path: (string | number)[], name: string) => {
    const why = unmatchedToolName(name, tools, what);
    if (why) add(path, why);
  };
  const exact = (path: (string | number)[], name: string, known: readonly string[]) => {
    if (!known.includes(name)) add(path, `"${name}" is not a ${what}${didYouMean(name, known)}`);
  };

  scenario.policy?.rules.forEach((rule, i) => rule.tools?.forEach((name, j) => pattern(['policy', 'rules', i, 'tools', j], name)));
  for (const list of ['allow', 'deny', 'ask'] as const) scenario.operator?.[list]?.forEach((name, j) => pattern(['operator', list, j], name));
  // A tool both denied and asked (or asked and left out of the allow list): the production host refuses such settings
  // as it is built; here it is named before anything runs (outside probe 62, LOW-2: the @host case "threw").
  if (scenario.operator?.ask)
    for (const v of voidAsks({ deny: scenario.operator.deny ?? [], ask: scenario.operator.ask, allow: scenario.operator.allow }, tools))
      add(
        ['operator', 'ask', v.ask],
        v.deny === 'allow'
          ? `${v.tool} is not in operator.allow: a tool the allow list hides is never asked for; allow it or drop the ask`
          : `${v.tool} is also denied by operator.deny[${v.deny}]: a denied tool is never asked for; keep it in one list`,
      );
  scenario.visibility?.forEach((layer, i) => {
    for (const list of ['allow', 'deny'] as const) layer[list]?.forEach((name, j) => pattern(['visibility', i, list, j], name));
  });
  scenario.inbox.forEach((entry, i) => {
    if (entry.at?.toolStart !== undefined) exact(['inbox', i, 'at', 'toolStart'], entry.at.toolStart, tools);
    if (entry.at?.toolRecorded !== undefined) exact(['inbox', i, 'at', 'toolRecorded'], entry.at.toolRecorded, tools);
  });

  // A stream cut inside a call of a tool the scenario names: the point is the agent's own tool (a misspelled one is
  // a call to no tool, refused whatever the loop does with what streamed).
  for (const [list, steps] of [
    ['script', scenario.provider.script],
    ['fallback', scenario.provider.fallback ?? []],
  ] as const)
    steps.forEach((step, i) => {
      const at = step.error?.midStream;
      if (typeof at === 'object') exact(['provider', list, i, 'error', 'midStream', 'tool_args'], at.tool_args, tools);
    });

  const calledIn = (steps: readonly { readonly tool_use?: readonly { readonly name: string }[] | undefined }[]) =>
    steps.flatMap((step) => (step.tool_use ?? []).map((c) => c.name));
  const called = calledIn([...scenario.provider.script, ...(scenario.provider.fallback ?? [])]);
  // The case's expectations, and a bystander's (which shares the agent, and names the tools its own script calls).
  const expectations = (at: readonly string[], expect: Scenario['expect'], nameable: readonly string[]) => {
    for (const name of Object.keys(expect.executions ?? {})) exact([...at, 'executions', name], name, nameable);
    expect.toolCalls?.forEach((name, i) => exact([...at, 'toolCalls', i], name, nameable));
    expect.toolResults?.forEach((r, i) => r.tool !== undefined && exact([...at, 'toolResults', i, 'tool'], r.tool, nameable));
    for (const [turn, want] of Object.entries(expect.turns ?? {}))
      want.toolResults?.forEach((r, i) => r.tool !== undefined && exact([...at, 'turns', turn, 'toolResults', i, 'tool'], r.tool, nameable));
    expect.policy?.forEach((p, i) => exact([...at, 'policy', i, 'tool'], p.tool, nameable));
  };
  expectations(['expect'], scenario.expect, [...new Set([...tools, ...called])]);
  const bystander = scenario.bystander;
  if (bystander) {
    expectations(['bystander', 'expect'], bystander.expect, [...new Set([...tools, ...calledIn(bystander.provider)])]);
    bystander.inbox.forEach((entry, i) => {
      if (entry.at?.toolStart !== undefined) exact(['bystander', 'inbox', i, 'at', 'toolStart'], entry.at.toolStart, tools);
      if (entry.at?.toolRecorded !== undefined) exact(['bystander', 'inbox', i, 'at', 'toolRecorded'], entry.at.toolRecorded, tools);
    });
  }
  return problems;
}

/** A turn number (a key of expect.turns) is a number key in the YAML document. */
function locatable(path: readonly (string | number)[]): (string | number)[] {
  return path.map((key, i) => (path[i - 1] === 'turns' && typeof key === 'string' && /^\d+$/.test(key) ? Number(key) : key));
}

function field(path: readonly (string | number)[]): string {
  let out = '';
  for (const key of path) out += typeof key === 'number' ? `[${key}]` : out ? `.${key}` : key;
  return out;
}
