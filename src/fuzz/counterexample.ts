/**
 * A shrunk counterexample as a normal scenario file: the smallest scenario
 * fast-check found, with a description saying which invariant it breaks, how it
 * was found and how to replay the search. Its `expect` is empty: the invariant
 * checks run on every scenario (the same registry the fuzzer checks), so the
 * file fails `loopgate run FILE` as it stands.
 */
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { markAsOutput } from '../files/index.ts';
import { parseScenario } from '../harness/scenario/load.ts';
import type { Scenario } from '../harness/scenario/schema.ts';
import type { FuzzFailure, FuzzResult } from './run-fuzz.ts';

export interface CounterexampleInfo {
  /** The id of the invariant it breaks. */
  readonly invariant: string;
  readonly title: string;
  readonly message: string;
  readonly seed: number;
  readonly path: string;
  readonly runs: number;
  readonly shrinks: number;
  readonly crashAt?: number | undefined;
  /** How to reproduce it (default: with `loopgate run`, for the example agent and the registry's invariants). */
  readonly reproduce?: string;
}

/** What a counterexample file says of the failure a search found (without how to reproduce it: each caller's own). */
export function failureInfo(result: Pick<FuzzResult, 'seed'>, failure: FuzzFailure): CounterexampleInfo {
  return {
    invariant: failure.invariant.id,
    title: failure.invariant.title,
    message: failure.message,
    seed: result.seed,
    path: failure.path,
    runs: failure.foundAtRun,
    shrinks: failure.shrinks,
    crashAt: failure.crashAt,
  };
}

/** Every key of the scenario format, as minimalScenario writes it: the writer's own, then what the run depended on (the schema test keeps this whole). */
export const SCENARIO_KEYS_WRITTEN: readonly string[] = Object.freeze([
  // set by the writer, or never part of a fuzz case
  '$schema',
  'name',
  'description',
  'tags',
  'live',
  // carried when they differ from the default
  'agent',
  'host',
  'hosts',
  'system',
  'prompt',
  'config',
  'tools',
  'policy',
  'approver',
  'visibility',
  'operator',
  'provider',
  'inbox',
  'compaction',
  'checkpoints',
  'errorHandlers',
  'claim',
  'store',
  'secrets',
  'secretsOnReopen',
  'listener',
  'bystander',
  'follow',
  'expect',
]);

/** The scenario without the keys that only repeat defaults, in the order people read a scenario file. */
export function minimalScenario(scenario: Scenario, info: CounterexampleInfo): Record<string, unknown> {
  const out: Record<string, unknown> = {
    name: `fuzz counterexample: ${info.invariant}`,
    description: describe(info),
    tags: ['fuzz-counterexample', info.invariant],
  };
  if (scenario.agent !== undefined) out['agent'] = scenario.agent;
  if (scenario.host !== undefined) out['host'] = scenario.host;
  if (scenario.hosts !== undefined) out['hosts'] = scenario.hosts;
  if (scenario.system !== undefined) out['system'] = scenario.system;
  if (scenario.prompt !== undefined) out['prompt'] = scenario.prompt;
  if (Object.keys(scenario.config).length > 0) out['config'] = scenario.config;
  if (scenario.tools.length > 0) out['tools'] = scenario.tools;
  for (const key of ['policy', 'approver', 'visibility', 'operator'] as const) if (scenario[key] !== undefined) out[key] = scenario[key];
  const { kind, provider, model, fallbackModel, script, fallback } = scenario.provider;
  out['provider'] = {
    ...(kind === 'wire' ? { kind, provider } : {}),
    ...(model !== undefined ? { model } : {}),
    ...(fallbackModel !== undefined ? { fallbackModel } : {}),
    script,
    ...(fallback ? { fallback } : {}),
  };
  out['inbox'] = scenario.inbox;
  for (const key of ['compaction', 'checkpoints', 'errorHandlers', 'claim', 'store', 'secrets', 'secretsOnReopen', 'listener', 'bystander', 'follow'] as const)
    if (scenario[key] !== undefined) out[key] = scenario[key];
  out['expect'] = scenario.expect;
  return out;
}

function describe(info: CounterexampleInfo): string {
  return [
    `Found by loopgate fuzz (seed ${info.seed}, run ${info.runs}, shrunk in ${info.shrinks} step(s)).`,
    `It breaks the invariant ${info.invariant} (${info.title}): ${info.message}`,
    ...(info.crashAt !== undefined
      ? [`The fuzz case also crashed the process before event ${info.crashAt} and reopened the store; loopgate run checks a crash at every event in memory.`]
      : []),
    info.reproduce ?? `Reproduce: loopgate run <this file> (exit 1). Replay the search: loopgate fuzz --seed ${info.seed} --path ${info.path}`,
  ].join('\n');
}

export function counterexampleYaml(scenario: Scenario, info: CounterexampleInfo): string {
  const text = `# A scenario the fuzzer shrank; edit it into a regression test once the bug is fixed.\n${stringify(minimalScenario(scenario, info), { aliasDuplicateObjects: false, lineWidth: 0 })}`;
  parseScenario(text, 'counterexample'); // it must load as it will be read back
  return text;
}

/** Writes the file (whole or not at all) and returns its path. */
export async function writeCounterexample(dir: string, scenario: Scenario, info: CounterexampleInfo): Promise<string> {
  await mkdir(dir, { recursive: true });
  await markAsOutput(dir); // not a suite's cases, wherever the folder is (review of stop 58, L4)
  const file = join(dir, `${info.invariant}-seed-${info.seed}.yaml`);
  const temp = `${file}.${process.pid}.tmp`;
  await writeFile(temp, counterexampleYaml(scenario, info), 'utf8');
  await rename(temp, file);
  return file;
}
