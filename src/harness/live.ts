/**
 * Live evals: scenarios marked `live` run against a real provider, with the API
 * key from the environment. Model output varies, so each runs `--repeat N` times
 * and its pass rate must reach the scenario's `live.passRate`; live expectations
 * should be about behaviour (tools called, approvals asked, outcome) — the
 * invariants are checked on every run as always. Without a key every live case is
 * skipped, with a line that says so.
 */
import { API_KEY_ENV, BASE_URL_ENV, createAdapter } from '../../providers/clients.ts';
import { isWireProvider, WIRE_PROVIDERS, type WireProvider } from '../../providers/names.ts';
import { InputError } from '../kernel/index.ts';
import type { CheckResult } from '../report/results.ts';
import { caseSeed, type Case } from './cases.ts';
import { checkExpectations } from './checks/expectations.ts';
import { checkInvariants } from './invariants/index.ts';
import type { LoadedScenario } from './scenario/load.ts';
import { outcomeOfRun } from './scenario-case.ts';
import { runScenario } from './second-host.ts';
import type { SuiteContext } from './suite-context.ts';

export interface LiveOptions {
  readonly provider: string;
  readonly repeat: number;
  /** The suite's scenario files (only those marked `live` run). */
  readonly scenarios: readonly LoadedScenario[];
  readonly context: SuiteContext;
  readonly env: NodeJS.ProcessEnv;
}

export const DEFAULT_LIVE_MODELS: Readonly<Record<WireProvider, string>> = {
  anthropic: 'claude-sonnet-4-5',
  'openai-chat': 'gpt-4.1-mini',
  'openai-responses': 'gpt-4.1-mini',
};

export function liveCases(options: LiveOptions): Case[] {
  const provider = options.provider;
  if (!isWireProvider(provider)) throw new InputError(`--provider ${provider}: live runs need one of ${WIRE_PROVIDERS.join(', ')}`);
  const loaded = options.scenarios.filter((l) => l.scenario.live);
  const { registry, invariants } = options.context;
  const keyName = API_KEY_ENV[provider];
  const apiKey = options.env[keyName];
  // Under CI a live gate without its key must not pass by skipping everything.
  if (!apiKey && options.env.CI && loaded.length > 0) {
    throw new InputError(`--live --provider ${provider}: ${keyName} is not set; under CI a live run needs its key (set it as a secret of the job)`);
  }
  const model = options.env.LOOPGATE_LIVE_MODEL ?? DEFAULT_LIVE_MODELS[provider];
  const baseURL = options.env[BASE_URL_ENV[provider]];
  return loaded.map((l) => ({
    id: `scenario:${l.id}@live:${provider}`,
    kind: 'scenario' as const,
    title: `${l.scenario.name} (live, ${provider})`,
    file: l.file,
    tags: [...l.scenario.tags, 'live'],
    async run({ seed }) {
      if (!apiKey) return { status: 'skipped', checks: [], skipReason: `live: ${keyName} is not set, so this live scenario was not run against ${provider}` };
      const threshold = l.scenario.live!.passRate;
      let passed = 0;
      let last;
      const failures: CheckResult[] = [];
      for (let i = 0; i < options.repeat; i++) {
        const client = createAdapter(provider, { apiKey, model, ...(baseURL ? { baseURL } : {}) });
        const run = await runScenario(l.scenario, {
          seed: caseSeed(seed, String(i)),
          agents: registry,
          model: client,
          modelName: model,
          realWaitLimitMs: 180_000,
        });
        const checks = [...checkExpectations(run, l.scenario.expect), ...(await checkInvariants(run, invariants))];
        if (checks.every((c) => c.passed)) passed++;
        else failures.push(...checks.filter((c) => !c.passed).map((c) => ({ ...c, name: `run ${i + 1}: ${c.name}` })));
        last = outcomeOfRun(run, checks, options.context.prices);
      }
      const rate = passed / options.repeat;
      const verdict: CheckResult = {
        name: 'pass rate',
        passed: rate >= threshold,
        message: `${passed}/${options.repeat} runs passed (${Math.round(rate * 100)}%; needs ${Math.round(threshold * 100)}%)`,
      };
      const checks = [verdict, ...failures];
      return { ...last!, status: verdict.passed ? 'passed' : 'failed', checks, repeats: { runs: options.repeat, passed, threshold } };
    },
  }));
}
