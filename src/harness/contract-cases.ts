/**
 * The provider contract suite as cases of `loopgate run`: every contract case for
 * the in-process fake and for each adapter over its wire-level fake (the real SDK
 * parsing real bytes), then every recorded real response (recorded-cases.ts).
 * Cases a provider cannot produce are visible skips.
 */
import type { ContractHarness } from '../../providers/contract-suite/harness.ts';
import { CONTRACT_CASES } from '../../providers/contract-suite/cases.ts';
import { runContract } from '../../providers/contract-suite/runner.ts';
import { createScriptedHarness } from '../../providers/contract-suite/scripted-harness.ts';
import { streamOnlyReason } from '../../providers/contract-suite/wire-plan.ts';
import { WIRE_PROVIDERS } from '../../providers/names.ts';
import type { Case } from './cases.ts';
import { recordedCases } from './recorded-cases.ts';

interface HarnessEntry {
  readonly provider: string;
  readonly make: () => Promise<ContractHarness>;
  /** Only the cases whose behaviour a non-streaming answer can carry (a stream fault has none). */
  readonly nonStreaming?: true;
}

/**
 * The wire harnesses load the SDKs and msw: only when a wire contract case runs.
 * Each adapter runs twice: streaming (the default) and asked not to stream
 * (`stream: false`, one JSON body), which is its own parsing path.
 */
const HARNESSES: readonly HarnessEntry[] = [
  { provider: 'fake', make: async () => createScriptedHarness() },
  ...WIRE_PROVIDERS.map((provider) => ({
    provider,
    make: async () => (await import('../../providers/contract-suite/wire-harness.ts')).createWireHarness(provider),
  })),
  ...WIRE_PROVIDERS.map((provider) => ({
    provider: `${provider}-json`,
    nonStreaming: true as const,
    make: async () => (await import('../../providers/contract-suite/wire-harness.ts')).createWireHarness(provider, { adapter: { stream: false } }),
  })),
];

export function contractCases(): Case[] {
  const out: Case[] = [];
  for (const { provider, make, nonStreaming } of HARNESSES) {
    for (const testCase of CONTRACT_CASES) {
      if (nonStreaming && streamOnlyReason(testCase.behaviour) !== undefined) continue;
      out.push({
        id: `contract:${provider}/${testCase.id}`,
        kind: 'contract',
        title: `${provider}: ${testCase.title}`,
        file: 'providers/contract-suite/cases.ts',
        async run() {
          const [report] = await runContract(await make(), { only: [testCase.id] });
          if (!report) return { status: 'failed', checks: [{ name: 'contract', passed: false, message: 'the case did not run' }] };
          const checks = [
            {
              name: 'contract',
              passed: report.status !== 'fail',
              message: report.reason ?? (report.status === 'pass' ? `normalized to ${report.result?.type ?? 'a result'}` : 'skipped'),
            },
          ];
          return report.status === 'skip'
            ? { status: 'skipped', checks: [], skipReason: report.reason ?? 'unsupported by this provider' }
            : { status: report.status === 'pass' ? 'passed' : 'failed', ...(report.result ? { outcome: report.result.type } : {}), checks };
        },
      });
    }
  }
  out.push(...recordedCases());
  return out;
}
