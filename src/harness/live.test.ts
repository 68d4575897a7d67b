/**
 * A live eval with a rubric graded by a real provider judge — both the model
 * under test and the judge reached through loopgate's Anthropic adapter, over
 * the wire-level fake — repeated: each rubric's pass rate over the repeats is
 * its own check, every run's verdict and reason is kept, and the case's pass
 * rate decides. The judge is asked with the judge's prompt and model name.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { anthropicWire } from '../../providers/wire-fakes/anthropic.ts';
import { streamPlan } from '../../providers/wire-fakes/plan.ts';
import { acquireWireFake } from '../../providers/wire-fakes/server.ts';
import { JUDGE_SYSTEM } from './judge/grade.ts';
import { liveCases } from './live.ts';
import { loadScenarioFile } from './scenario/load.ts';
import { contextFromOptions } from './scenario-file.ts';

const fake = acquireWireFake();
const dir = mkdtempSync(join(tmpdir(), 'loopgate-live-'));
afterAll(() => {
  fake.release();
  rmSync(dir, { recursive: true, force: true });
});

const turn = (text: string) => ({ blocks: [{ type: 'text' as const, text }], stop: 'end' as const, usage: { input: 20, output: 5 } });

describe('live runs grade rubrics with a provider judge, with pass rates over the repeats', () => {
  it('keeps every verdict and gives each assertion its pass rate', async () => {
    const verdicts = [true, false, true, true];
    let graded = 0;
    const judgeModels: unknown[] = [];
    const wire = fake.scenario((request) => {
      const body = request.body as { system?: unknown; model?: unknown };
      if (JSON.stringify(body.system ?? '').includes('grade an AI assistant')) {
        judgeModels.push(body.model);
        const pass = verdicts[graded++ % verdicts.length]!;
        return streamPlan(anthropicWire.streamFrames(turn(JSON.stringify({ pass, reason: pass ? 'Polite and complete.' : 'It forgot to greet.' }))));
      }
      return streamPlan(anthropicWire.streamFrames(turn('Hello! Your order has shipped.')));
    });
    const file = join(dir, 'polite.yaml');
    writeFileSync(
      file,
      'name: a live rubric\nlive: { passRate: 0.5 }\ninbox:\n  - say: hi\nexpect:\n  outcome: replied\n  assert:\n    - rubric: The reply greets the customer.\n      judge: grader\n',
    );
    const context = contextFromOptions({ root: dir, judges: { grader: { provider: 'anthropic', model: 'judge-model' } } });
    const [live] = liveCases({
      provider: 'anthropic',
      repeat: 4,
      scenarios: [loadScenarioFile(file, dir)],
      context,
      env: { ANTHROPIC_API_KEY: 'sk-ant-test-key-0123456789', ANTHROPIC_BASE_URL: wire.baseURL('anthropic') },
    });
    const outcome = await live!.run({ seed: 1 });

    expect(JUDGE_SYSTEM).toContain('grade an AI assistant');
    expect(judgeModels).toEqual(['judge-model', 'judge-model', 'judge-model', 'judge-model']);
    expect(outcome.status).toBe('passed');
    expect(outcome.repeats).toEqual({ runs: 4, passed: 3, threshold: 0.5 });
    const byName = new Map(outcome.checks.map((c) => [c.name, c]));
    expect(byName.get('pass rate: assert[0] rubric')).toMatchObject({ passed: true, message: '3/4 runs (75%; needs 50%)' });
    expect(outcome.checks.filter((c) => c.judge).map((c) => [c.name, c.judge!.pass, c.judge!.reason])).toEqual([
      ['run 1: assert[0] rubric', true, 'Polite and complete.'],
      ['run 2: assert[0] rubric', false, 'It forgot to greet.'],
      ['run 3: assert[0] rubric', true, 'Polite and complete.'],
      ['run 4: assert[0] rubric', true, 'Polite and complete.'],
    ]);
  });
});

describe('a live run without its key', () => {
  const file = join(dir, 'keyless.yaml');
  const cases = (env: NodeJS.ProcessEnv) => {
    writeFileSync(file, 'name: a live check\nlive: { passRate: 1 }\ninbox:\n  - say: hi\nexpect:\n  outcome: replied\n');
    return liveCases({ provider: 'anthropic', repeat: 1, scenarios: [loadScenarioFile(file, dir)], context: contextFromOptions({ root: dir }), env });
  };

  it.each(['true', '1', 'yes'])('under CI (CI=%s) is exit 2 naming the variable', (ci) => {
    expect(() => cases({ CI: ci })).toThrow(/ANTHROPIC_API_KEY is not set; under CI/);
  });

  it.each(['false', '0', ''])('outside CI (CI=%j, as people write to turn CI behaviour off) is skipped saying why', async (ci) => {
    const [live] = cases({ CI: ci });
    expect(await live!.run({ seed: 1 })).toMatchObject({ status: 'skipped', skipReason: expect.stringMatching(/ANTHROPIC_API_KEY is not set/) });
  });
});
