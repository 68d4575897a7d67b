/**
 * The contract part of the bundled gate: the provider contract suite on the
 * fakes and every other contract case module (`contract:<area>/<id>`), in the
 * order `loopgate run` lists them. One list, loaded lazily (the contract suite
 * brings the SDKs and msw), shared by `loopgate run` and the mutation judge
 * (bench/mutation/gate.judge.ts): a module added here is in both, so the judge
 * cannot miss cases the gate runs.
 */
import type { Case } from './cases.ts';

export async function loadBundledContractCases(): Promise<() => Case[]> {
  const [
    { contractCases },
    { logRedactionCases },
    { logReadCases },
    { recomputeCases },
    { visibilityCases },
    { systemClockCases },
    { reportCases },
    { modelErrorCases },
    { argumentCopyCases },
    { toolRenderCases },
    { tracerCases },
    { snapshotCases },
    { assistantContentCases },
    { malformedHistoryCases },
    { redactorCases },
    { clientUsageCases },
    { cancelSignalCases },
    { longHistoryCases },
    { toolExecutorCases },
    { promptAssemblerCases },
    { loopDepsCases },
    { traceApiCases },
    { outcomeCases },
    { policyCases },
  ] = await Promise.all([
    import('./contract-cases.ts'),
    import('./log-redaction-cases.ts'),
    import('./log-read-cases.ts'),
    import('./recompute-cases.ts'),
    import('./visibility-cases.ts'),
    import('./system-clock-cases.ts'),
    import('./report-cases.ts'),
    import('./model-error-cases.ts'),
    import('./argument-copy-cases.ts'),
    import('./tool-render-cases.ts'),
    import('./tracer-cases.ts'),
    import('./snapshot-cases.ts'),
    import('./assistant-content-cases.ts'),
    import('./malformed-history-cases.ts'),
    import('./redactor-cases.ts'),
    import('./client-usage-cases.ts'),
    import('./cancel-signal-cases.ts'),
    import('./long-history-cases.ts'),
    import('./tool-executor-cases.ts'),
    import('./prompt-assembler-cases.ts'),
    import('./loop-deps-cases.ts'),
    import('./trace-api-cases.ts'),
    import('./outcome-cases.ts'),
    import('./policy-cases.ts'),
  ]);
  return () => [
    ...contractCases(),
    ...logRedactionCases(),
    ...logReadCases(),
    ...recomputeCases(),
    ...visibilityCases(),
    ...systemClockCases(),
    ...reportCases(),
    ...modelErrorCases(),
    ...argumentCopyCases(),
    ...toolRenderCases(),
    ...tracerCases(),
    ...snapshotCases(),
    ...assistantContentCases(),
    ...malformedHistoryCases(),
    ...redactorCases(),
    ...clientUsageCases(),
    ...cancelSignalCases(),
    ...longHistoryCases(),
    ...toolExecutorCases(),
    ...promptAssemblerCases(),
    ...loopDepsCases(),
    ...traceApiCases(),
    ...outcomeCases(),
    ...policyCases(),
  ];
}
