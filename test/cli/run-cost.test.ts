/**
 * Cost through `loopgate run`: a price table in loopgate.config.ts prices every
 * model call, and the cost per turn, per case and per suite reaches every
 * report; a dearer model with the same tokens is a cost regression the baseline
 * gate catches; a model without a price is reported as unpriced, never as free,
 * and never as a regression; a bad price table is exit 2 naming file, line and key.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { run, type RunArgs } from '../../src/cli/commands/run.ts';
import { EXIT } from '../../src/cli/exit-codes.ts';
import { ConfigFileError } from '../../src/config/config-error.ts';
import { readResultsFile } from '../../src/report/json.ts';

const dir = mkdtempSync(join(tmpdir(), 'loopgate-cost-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SCENARIO = `name: Two turns, two model calls, known usage
inbox:
  - say: hello
  - say: and again
provider:
  script:
    - { reply: hi, usage: { input: 1000, output: 100 } }
    - { reply: hi again, usage: { input: 2000, output: 100 } }
expect:
  outcomes: [replied, replied]
`;

/** A config with the model the scenarios ask for (`scenario-model`) priced at `input` and `output` USD per million. */
function config(name: string, models: string): string {
  const file = join(dir, name);
  writeFileSync(file, `export default {\n  scenarios: ['scenarios'],\n  prices: {\n    currency: 'USD',\n    models: {\n${models}\n    },\n  },\n};\n`);
  return file;
}

const out = join(dir, 'out');
// Through the loop only: one case per file, so the amounts are the file's.
const args = (over: Partial<RunArgs>): RunArgs => ({
  reporter: ['json', 'junit', 'markdown', 'html', 'console'],
  out,
  seed: 1,
  repeat: 1,
  host: 'loop',
  ...over,
});

async function gate(over: Partial<RunArgs>): Promise<{ code: number; console: string }> {
  const lines: string[] = [];
  const code = await run(args(over), { out: (t) => lines.push(t), err: () => {}, tty: false });
  return { code, console: lines.join('') };
}

describe('cost per call, turn, case and suite', () => {
  const scenarios = join(dir, 'scenarios');
  mkdirSync(scenarios, { recursive: true });
  writeFileSync(join(scenarios, 'two-turns.yaml'), SCENARIO);
  const cheap = config('cheap.config.ts', `      'scenario-model': { input: 3, output: 15 },`);
  const dear = config('dear.config.ts', `      'scenario-model': { input: 6, output: 15 },`);
  const unpriced = config('unpriced.config.ts', `      'gpt-4.1-mini': { input: 0.4, output: 1.6 },`);

  it('reports the cost in the console, results.json, JUnit, Markdown and HTML', async () => {
    const { code, console } = await gate({ config: cheap });
    expect(code).toBe(EXIT.passed);
    // turn 0: 1000 × $3 + 100 × $15 per million = $0.0045; turn 1: 2000 × $3 + 100 × $15 = $0.0075.
    const results = await readResultsFile(join(out, 'results.json'));
    const c = results.cases.find((x) => x.id === 'scenario:scenarios/two-turns')!;
    expect(c.metrics?.cost).toEqual({
      currency: 'USD',
      amount: 0.012,
      unpricedCalls: 0,
      turns: [
        { turn: 0, amount: 0.0045, unpricedCalls: 0 },
        { turn: 1, amount: 0.0075, unpricedCalls: 0 },
      ],
    });
    expect(results.summary.cost).toEqual({ currency: 'USD', amount: 0.012, unpricedCalls: 0, cases: 1 });
    expect(c.timeline?.filter((e) => e.kind === 'model_call').map((e) => (e.data as { cost?: string }).cost)).toEqual(['$0.0045', '$0.0075']);

    expect(console).toMatch(/cost +\$0\.012 over 1 case/);
    expect(console).toContain('scenario:scenarios/two-turns — $0.012 (turn 0 $0.0045, turn 1 $0.0075)');
    const junit = readFileSync(join(out, 'junit.xml'), 'utf8');
    expect(junit).toContain('<property name="cost" value="$0.012"/>');
    expect(junit).toContain('<property name="cost.turn.1" value="$0.0075"/>');
    const markdown = readFileSync(join(out, 'summary.md'), 'utf8');
    expect(markdown).toContain('cost $0.012 over 1 case');
    expect(markdown).toContain('| scenario:scenarios/two-turns | $0.012 | turn 0 $0.0045, turn 1 $0.0075 |');
    expect(readFileSync(join(out, 'report.html'), 'utf8')).toContain('"cost":{"currency":"USD","amount":0.012');
  });

  it('the same tokens sent to a dearer model: --baseline catches a cost regression', async () => {
    const baseline = join(dir, 'baseline.json');
    expect((await gate({ config: cheap, baseline, updateBaseline: true })).code).toBe(EXIT.passed);
    expect(JSON.parse(readFileSync(baseline, 'utf8')).cases['scenario:scenarios/two-turns']).toEqual({
      status: 'passed',
      steps: 2,
      tokens: 3200,
      cost: 0.012,
      currency: 'USD',
    });
    expect((await gate({ config: cheap, baseline })).code).toBe(EXIT.passed);

    // Input at $6 instead of $3: $0.021, +75 %; steps and tokens unchanged.
    const { code, console } = await gate({ config: dear, baseline });
    expect(code).toBe(EXIT.failed);
    const results = await readResultsFile(join(out, 'results.json'));
    expect(results.regressions).toEqual([{ id: 'scenario:scenarios/two-turns', kind: 'cost', message: 'cost $0.012 → $0.021 (+75%; allowed: +20%)' }]);
    expect(console).toContain('[cost] cost $0.012 → $0.021');
    expect(readFileSync(join(out, 'junit.xml'), 'utf8')).toContain('type="regression.cost"');
  });

  it('a model without a price is reported as unpriced, not as zero, and is not a regression', async () => {
    const baseline = join(dir, 'baseline.json');
    const { code, console } = await gate({ config: unpriced, baseline });
    expect(code).toBe(EXIT.passed);
    const c = (await readResultsFile(join(out, 'results.json'))).cases[0]!;
    expect(c.metrics?.cost).toMatchObject({ amount: 0, unpricedCalls: 2, unpricedModels: ['scenario-model'] });
    expect(console).toContain('unknown: 2 unpriced calls (no price for scenario-model)');
    expect(c.timeline?.find((e) => e.kind === 'model_call')?.data).toMatchObject({ model: 'scenario-model', unpriced: 'no price for scenario-model' });
  });

  it('a bad price table: exit 2 before anything runs, naming the file, the line and the key', async () => {
    const bad = config('bad.config.ts', `      'scenario-model': {\n        input: 3,\n        output: -15,\n      },`);
    await expect(gate({ config: bad })).rejects.toThrow(ConfigFileError);
    await expect(gate({ config: bad })).rejects.toThrow(
      /bad\.config\.ts:8: prices\.models\.scenario-model\.output: expected a price per million tokens, a number ≥ 0, got -15/,
    );
    const typo = config('typo.config.ts', `      'scenario-model': { input: 3, outptu: 15 },`);
    await expect(gate({ config: typo })).rejects.toThrow(/typo\.config\.ts:6: prices\.models\.scenario-model\.outptu: unknown key; known: input, output/);
  });
});
