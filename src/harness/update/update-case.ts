/**
 * A scenario case under `--update`: its file rewritten from the run (see
 * update-scenario.ts), then its expectations checked again — against the file
 * as it now reads, on the same run — so the case reports what it is now, with
 * a check `update` saying what was rewritten. What happened to each file goes
 * to the sink, for the command to report.
 */
import type { CheckResult } from '../../report/results.ts';
import { checkExpectations } from '../checks/expectations.ts';
import type { LoadedScenario } from '../scenario/load.ts';
import type { ScenarioRun } from '../second-host.ts';
import { updateScenarioFile, type UpdateResult } from './update-scenario.ts';

export interface UpdateSink {
  record(result: UpdateResult): void;
}

export function updateCase(
  loaded: LoadedScenario,
  run: ScenarioRun,
  checks: { readonly expectations: readonly CheckResult[]; readonly invariants: readonly CheckResult[] },
  sink: UpdateSink,
): readonly CheckResult[] {
  const result = updateScenarioFile(loaded, run, checks.invariants);
  if (result.kind === 'refused') {
    sink.record(result);
    return checks.expectations;
  }
  const now = result.kind === 'updated' ? checkExpectations(run, result.scenario.expect) : checks.expectations;
  // A file that still fails on a key --update leaves alone is not "up to date" (outside probe 14, CLI-8).
  const stillFailing = [...new Set(now.filter((c) => !c.passed).map((c) => c.name))];
  sink.record(stillFailing.length > 0 ? { ...result, stillFailing } : result);
  if (result.kind !== 'updated') return now;
  return [{ name: 'update', passed: true, message: `rewrote ${result.file}: ${result.changes.join('; ')}` }, ...now];
}
