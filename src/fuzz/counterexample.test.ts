import { mkdirSync, mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findScenarioFiles, parseScenario } from '../harness/scenario/load.ts';
import { scenarioSchema } from '../harness/scenario/schema.ts';
import { counterexampleYaml, minimalScenario, SCENARIO_KEYS_WRITTEN, writeCounterexample } from './counterexample.ts';

const scenario = parseScenario(
  ['name: x', 'config: { retry: { jitter: 0 } }', 'provider:', '  script:', '    - refusal: no', 'inbox:', '  - say: hi', 'expect: {}'].join('\n'),
  'x.yaml',
);
const info = {
  invariant: 'outcome-follows-table',
  title: 'turns end as the table says',
  message: 'request 1: the provider answered refusal, but the loop recorded reply',
  seed: 11,
  path: '3:0:1',
  runs: 4,
  shrinks: 9,
};

describe('counterexample files', () => {
  it('leave out what only repeats a default, and say what broke and how to reproduce it', () => {
    const minimal = minimalScenario(scenario, info);
    expect(Object.keys(minimal)).toEqual(['name', 'description', 'tags', 'config', 'provider', 'inbox', 'expect']);
    expect(minimal['provider']).toEqual({ script: [{ refusal: 'no' }] });
    expect(minimal['description']).toMatch(
      /seed 11, run 4, shrunk in 9 step\(s\)[\s\S]*outcome-follows-table[\s\S]*recorded reply[\s\S]*loopgate run <this file> \(exit 1\)[\s\S]*loopgate fuzz --seed 11 --path 3:0:1/,
    );
  });

  it('keep a wire provider, prompt fragments and what else the run depended on', () => {
    const wire = parseScenario(
      [
        'name: x',
        'prompt: [{ id: tone, priority: 50, text: Be brief. }, { id: ctx, priority: 0, dynamic: [a, { throw: down }], exclusive: true }]',
        'tools: [{ name: probe, description: p, executor: drops-result }]',
        'provider:',
        '  kind: wire',
        '  provider: openai-chat',
        '  script:',
        '    - tool_use: [{ name: probe, args: {} }, { name: probe, args: {} }]',
        '      interleaved: true',
        'compaction: [{ summary: s, range: splits-batch }]',
        'inbox:',
        '  - say: hi',
        'expect: {}',
      ].join('\n'),
      'wire.yaml',
    );
    const back = parseScenario(counterexampleYaml(wire, info), 'back.yaml');
    expect({ ...back, name: wire.name, description: undefined, tags: [] }).toEqual({ ...wire, description: undefined });
  });

  it('keep several hosts and the operator settings: a two-host counterexample loads back as the case that failed', () => {
    const twoHosts = parseScenario(
      [
        'name: x',
        'host: production',
        'hosts: 2',
        'operator: { deny: [notify_customer] }',
        'provider:',
        '  script:',
        '    - reply: ok',
        '    - reply: ok again',
        'store: { failAppends: [9] }',
        'inbox:',
        '  - say: hi',
        '  - say: again',
        '    via: 2',
        'expect: {}',
      ].join('\n'),
      'two-hosts.yaml',
    );
    const back = parseScenario(counterexampleYaml(twoHosts, info), 'back.yaml');
    expect({ ...back, name: twoHosts.name, description: undefined, tags: [] }).toEqual({ ...twoHosts, description: undefined });
  });

  it('know every key of the scenario schema: each is carried or set by the writer (a key added later is not lost)', () => {
    expect([...SCENARIO_KEYS_WRITTEN].sort()).toEqual(Object.keys(scenarioSchema.shape).sort());
  });

  it('load back as the same scenario (the writer refuses anything that would not)', () => {
    const back = parseScenario(counterexampleYaml(scenario, info), 'back.yaml');
    expect({ ...back, name: scenario.name, description: undefined, tags: [] }).toEqual({ ...scenario, description: undefined });
  });
});

/**
 * Counterexamples a search writes are not a suite's cases (review of stop 58, L4): under `scenarios: ['.']` the default
 * reports/ sits inside the scenario folder, and `--out sc/x` inside one. Their folder is marked as loopgate's output:
 * skipped when found inside a scenario folder, read when named outright.
 */
describe('a counterexample folder inside a scenario folder', () => {
  it('is not walked into as part of the suite, and is read when named', async () => {
    const root = mkdtempSync(join(tmpdir(), 'lg-walk-'));
    mkdirSync(join(root, 'sc'));
    writeFileSync(join(root, 'sc', 'hi.yaml'), counterexampleYaml(scenario, info));
    const written = await writeCounterexample(join(root, 'reports', 'counterexamples'), scenario, info);
    const nested = await writeCounterexample(join(root, 'sc', 'x', 'counterexamples'), scenario, info);
    const listed = (path: string) => findScenarioFiles(path).map((f) => relative(root, f));
    expect(listed(root)).toEqual(['sc/hi.yaml']);
    expect(listed(join(root, 'sc'))).toEqual(['sc/hi.yaml']);
    expect(listed(join(root, 'reports', 'counterexamples'))).toEqual([relative(root, written)]);
    expect(listed(nested)).toEqual([relative(root, nested)]);
  });

  it('is walked again once moved: the marker holds only where loopgate wrote it (review of stop 59)', async () => {
    const root = mkdtempSync(join(tmpdir(), 'lg-walk-'));
    mkdirSync(join(root, 'sc'));
    const written = await writeCounterexample(join(root, 'reports', 'counterexamples'), scenario, info);
    renameSync(join(root, 'reports', 'counterexamples'), join(root, 'sc', 'regressions'));
    expect(findScenarioFiles(join(root, 'sc')).map((f) => relative(root, f))).toEqual([join('sc', 'regressions', basename(written))]);
  });
});
