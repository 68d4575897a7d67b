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
import { underCi } from './ci.ts';
import { checkExpectations } from './checks/expectations.ts';
import { checkReplyAssertions, NO_REPLY_ASSERTIONS } from './checks/reply-assertions.ts';
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
  // Judges that call a provider take their key from the same environment as the model under test.
  const replies = { ...(options.context.replies ?? NO_REPLY_ASSERTIONS), env: options.env };
  const keyName = API_KEY_ENV[provider];
  const apiKey = options.env[keyName];
  // Under CI a live gate without its key must not pass by skipping everything.
  if (!apiKey && underCi(options.env) && loaded.length > 0) {
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
    ...(l.scenario.secrets ? { secrets: l.scenario.secrets } : {}),
    async run({ seed }) {
      if (!apiKey) return { status: 'skipped', checks: [], skipReason: `live: ${keyName} is not set, so this live scenario was not run against ${provider}` };
      const threshold = l.scenario.live!.passRate;
      let passed = 0;
      let last;
      const failures: CheckResult[] = [];
      const assertionRuns = new Map<string, number>(); // per reply assertion: the runs it passed in
      for (let i = 0; i < options.repeat; i++) {
        const client = createAdapter(provider, { apiKey, model, ...(baseURL ? { baseURL } : {}) });
        const run = await runScenario(l.scenario, {
          seed: caseSeed(seed, String(i)),
          agents: registry,
          model: client,
          modelName: model,
          realWaitLimitMs: 180_000,
        });
        const checks = [
          ...checkExpectations(run, l.scenario.expect),
          ...(await checkReplyAssertions(run, l.scenario.expect.assert, replies)),
          ...(await checkInvariants(run, invariants)),
        ];
        for (const c of checks) if (c.name.startsWith('assert[')) assertionRuns.set(c.name, (assertionRuns.get(c.name) ?? 0) + (c.passed ? 1 : 0));
        if (checks.every((c) => c.passed)) passed++;
        // Every failing check of the run, and every judge's verdict (its reason belongs in the report, pass or fail).
        failures.push(...checks.filter((c) => !c.passed || c.judge).map((c) => ({ ...c, name: `run ${i + 1}: ${c.name}` })));
        last = outcomeOfRun(run, checks, options.context.prices);
      }
      const rate = passed / options.repeat;
      const verdict: CheckResult = {
        name: 'pass rate',
        passed: rate >= threshold,
        message: `${passed}/${options.repeat} runs passed (${Math.round(rate * 100)}%; needs ${Math.round(threshold * 100)}%)`,
      };
      // Each reply assertion's own pass rate over the repeats (a rubric judged 4 of 5 times good).
      const rates: CheckResult[] = [...assertionRuns].map(([name, n]) => ({
        name: `pass rate: ${name}`,
        passed: n / options.repeat >= threshold,
        message: `${n}/${options.repeat} runs (${Math.round((n / options.repeat) * 100)}%; needs ${Math.round(threshold * 100)}%)`,
      }));
      const checks = [verdict, ...rates, ...failures];
      return { ...last!, status: verdict.passed ? 'passed' : 'failed', checks, repeats: { runs: options.repeat, passed, threshold } };
    },
  }));
}
