/**
 * The judge of one rubric: the scenario's own script, a judge of the config by
 * name, or the config's default judge — as a model client and the model name
 * to ask for. Provider judges are built through the adapters with the API key
 * from the environment (live runs only: the loader refuses them elsewhere).
 */
import { API_KEY_ENV, BASE_URL_ENV } from '../../../providers/env.ts';
import type { ModelClient } from '../../kernel/index.ts';
import { isProviderJudge, type JudgeSpec, type ReplyAssertionContext } from '../checks/reply-assertion-types.ts';
import type { ReplyAssertion } from '../scenario/reply-assertions-schema.ts';
import { scriptedJudge } from './scripted-judge.ts';

export interface ResolvedJudge {
  /** As reports show it: the judge's name in the config, or `scripted` for the scenario's own script. */
  readonly name: string;
  readonly client: ModelClient;
  readonly model: string;
}

/** The judge name a rubric uses (`scripted` for its own script), or undefined when the config has none to give. */
export function judgeNameOf(assertion: ReplyAssertion, context: Pick<ReplyAssertionContext, 'judges' | 'defaultJudge'>): string | undefined {
  if (typeof assertion.judge === 'object') return 'scripted';
  if (typeof assertion.judge === 'string') return assertion.judge;
  if (context.defaultJudge !== undefined) return context.defaultJudge;
  return context.judges.size === 1 ? [...context.judges.keys()][0] : undefined;
}

/** The judge of `assertion`; a provider judge's SDK loads here (only live runs have one). */
export async function resolveJudge(assertion: ReplyAssertion, context: ReplyAssertionContext): Promise<ResolvedJudge | Error> {
  if (typeof assertion.judge === 'object') return { name: 'scripted', client: scriptedJudge(assertion.judge.script), model: 'scripted-judge' };
  const name = judgeNameOf(assertion, context);
  const spec = name === undefined ? undefined : context.judges.get(name);
  if (name === undefined || spec === undefined)
    return new Error(`no judge ${name === undefined ? 'named and no default judge' : JSON.stringify(name)} in the config`);
  return clientOf(name, spec, context.env ?? process.env);
}

async function clientOf(name: string, spec: JudgeSpec, env: NodeJS.ProcessEnv): Promise<ResolvedJudge | Error> {
  if (isProviderJudge(spec)) {
    const apiKey = env[API_KEY_ENV[spec.provider]];
    if (!apiKey) return new Error(`judge ${name}: ${API_KEY_ENV[spec.provider]} is not set`);
    const baseURL = env[BASE_URL_ENV[spec.provider]];
    const { createAdapter } = await import('../../../providers/clients.ts');
    return { name, client: createAdapter(spec.provider, { apiKey, model: spec.model, ...(baseURL ? { baseURL } : {}) }), model: spec.model };
  }
  if ('client' in spec && typeof (spec as { client?: unknown }).client === 'object') {
    const { client, model } = spec as { client: ModelClient; model?: string };
    return { name, client, model: model ?? client.name };
  }
  const client = spec as ModelClient;
  return { name, client, model: client.name };
}
