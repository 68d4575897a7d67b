/**
 * The fuzzer's own contract, as cases of the bundled gate (`contract:fuzz/…`):
 * its check of what it drew (drawn.ts) must fail a run that drew a family in no
 * case, and the generators must draw every family at least at the share that
 * check assumes. A check that never reports, or a generator that stopped drawing
 * a family, would otherwise pass every run unseen (outside probe 32, N9).
 */
import fc from 'fast-check';
import type { Case } from '../harness/cases.ts';
import { checksCase } from '../harness/cases.ts';
import type { CheckResult } from '../report/results.ts';
import { FAMILIES, tallyDrawn, undrawn } from './drawn.ts';
import { fuzzCaseArb } from './generators/scenario.ts';

const FILE = 'src/fuzz/contract-cases.ts';
/** Cases sampled from the generators (with their defaults); fixed seed, so the case is the same every run. */
const SAMPLE = 600;

function drawnCheckReports(): CheckResult[] {
  const all = FAMILIES.map((f) => f.id);
  const none = undrawn(new Map(), 10_000, {});
  const full = undrawn(new Map(all.map((id) => [id, 1])), 10_000, {});
  const noCrashes = undrawn(new Map(), 10_000, { crashes: false, production: 0, wire: 0 });
  const short = undrawn(new Map(), 10, {});
  return [
    {
      name: 'a long run that drew nothing names every family',
      passed: JSON.stringify(none) === JSON.stringify(all),
      message: `named ${JSON.stringify(none)}`,
    },
    { name: 'a run that drew every family names none', passed: full.length === 0, message: `named ${JSON.stringify(full)}` },
    {
      name: 'families the options leave out are not judged',
      passed:
        !noCrashes.some((id) => id === 'a crash' || id === 'the production host' || id.startsWith('a wire provider')) && noCrashes.length === all.length - 3,
      message: `named ${JSON.stringify(noCrashes)}`,
    },
    { name: 'a run of 10 cases judges nothing', passed: short.length === 0, message: `named ${JSON.stringify(short)}` },
  ];
}

function generatorsDrawEveryFamily(): CheckResult[] {
  const drawn = new Map<string, number>();
  for (const c of fc.sample(fuzzCaseArb({}), { numRuns: SAMPLE, seed: 20261205 })) tallyDrawn(drawn, c);
  return FAMILIES.map((f) => {
    const share = (drawn.get(f.id) ?? 0) / SAMPLE;
    // The rare families (a share under 1%) only need to be drawn at all here.
    const passed = f.rate >= 0.01 ? share >= f.rate : share > 0;
    return {
      name: `the generators draw ${f.id}`,
      passed,
      message: `${drawn.get(f.id) ?? 0} of ${SAMPLE} cases (${(share * 100).toFixed(1)}%; the drawn check assumes at least ${(f.rate * 100).toFixed(1)}%)`,
    };
  });
}

export function fuzzContractCases(): Case[] {
  return [
    checksCase(
      {
        id: 'contract:fuzz/drawn-check-names-every-family-drawn-in-none',
        title: 'fuzz: the check of what a run drew names every family a long run drew in no case, and only those it can judge',
        file: FILE,
      },
      drawnCheckReports,
    ),
    checksCase(
      {
        id: 'contract:fuzz/generators-draw-every-family',
        title: `fuzz: ${SAMPLE} generated cases draw every family at least at the share the drawn check assumes`,
        file: FILE,
      },
      generatorsDrawEveryFamily,
    ),
  ];
}
