/**
 * The config's `assertions` (predicates on a reply), `judges` (judge models for
 * rubrics) and `defaultJudge`, checked: a problem names the key, and nothing runs.
 */
import { WIRE_PROVIDERS } from '../../providers/names.ts';
import type { JudgeSpec, ReplyAssertionContext, ReplyPredicate } from '../harness/checks/reply-assertion-types.ts';
import { closestName } from '../kernel/index.ts';
import type { LoopgateConfig } from './define-config.ts';

const NAME = /^[A-Za-z0-9_.-]{1,64}$/;

type Fail = (key: string, message: string, path?: readonly string[]) => never;

export function checkReplyConfig(config: LoopgateConfig, fail: Fail): ReplyAssertionContext {
  const predicates = new Map<string, ReplyPredicate>();
  if (config.assertions !== undefined) {
    if (!isObject(config.assertions)) fail('assertions', 'expected predicates by name: { NAME: (reply, run) => true | "why it fails" }');
    for (const [name, predicate] of Object.entries(config.assertions)) {
      if (!NAME.test(name)) fail(`assertions.${name}`, 'an assertion name is letters, digits, _ . or - (at most 64)', ['assertions', name]);
      if (typeof predicate !== 'function') fail(`assertions.${name}`, 'expected a predicate: (reply, run) => true | "why it fails"', ['assertions', name]);
      predicates.set(name, predicate);
    }
  }
  const judges = new Map<string, JudgeSpec>();
  if (config.judges !== undefined) {
    if (!isObject(config.judges)) fail('judges', 'expected judge models by name: { NAME: client | { provider, model } }');
    for (const [name, spec] of Object.entries(config.judges)) {
      const path = ['judges', name];
      if (!NAME.test(name)) fail(`judges.${name}`, 'a judge name is letters, digits, _ . or - (at most 64)', path);
      const problem = judgeProblem(spec);
      if (problem) fail(`judges.${name}`, problem, path);
      judges.set(name, spec);
    }
  }
  const defaultJudge = config.defaultJudge;
  if (defaultJudge !== undefined) {
    const names = [...judges.keys()];
    if (typeof defaultJudge !== 'string' || !judges.has(defaultJudge)) {
      const near = typeof defaultJudge === 'string' ? closestName(defaultJudge, names) : undefined;
      fail('defaultJudge', `no judge ${JSON.stringify(defaultJudge)}${near ? ` (did you mean ${near}?)` : ''}; defined: ${names.join(', ') || 'none'}`);
    }
  }
  return { predicates, judges, ...(defaultJudge !== undefined ? { defaultJudge } : {}) };
}

function judgeProblem(spec: unknown): string | undefined {
  const expected = `expected a ModelClient ({ name, call }), { client, model }, or { provider: ${WIRE_PROVIDERS.join(' | ')}, model }`;
  if (!isObject(spec)) return expected;
  const s = spec as Record<string, unknown>;
  if (s['provider'] !== undefined) {
    if (typeof s['provider'] !== 'string' || !(WIRE_PROVIDERS as readonly string[]).includes(s['provider']))
      return `provider: expected one of ${WIRE_PROVIDERS.join(', ')}, got ${JSON.stringify(s['provider'])}`;
    if (typeof s['model'] !== 'string' || s['model'] === '') return 'model: expected the model name the judge asks the provider for';
    return undefined;
  }
  if (s['client'] !== undefined) {
    if (!isClient(s['client'])) return `client: ${expected}`;
    if (s['model'] !== undefined && typeof s['model'] !== 'string') return 'model: expected a model name';
    return undefined;
  }
  return isClient(spec) ? undefined : expected;
}

function isClient(value: unknown): boolean {
  return isObject(value) && typeof (value as { call?: unknown }).call === 'function' && typeof (value as { name?: unknown }).name === 'string';
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
