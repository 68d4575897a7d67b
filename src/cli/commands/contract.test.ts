import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CONTRACT_CASES } from '../../../providers/contract-suite/cases.ts';
import { LIVE_CASES } from '../../../providers/contract-suite/live-cases.ts';
import { contractCommand } from './contract-command.ts';
import { runContractCommand, type ContractArgs } from './contract.ts';
import { UsageError } from '../usage-error.ts';

async function run(args: ContractArgs, env: NodeJS.ProcessEnv = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runContractCommand(args, { out: (t) => out.push(t), err: (t) => err.push(t), env });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('loopgate contract (wire fakes)', () => {
  it('lists every case for every provider, skips with reasons, and exits 0', async () => {
    const { code, out } = await run({});
    expect(code).toBe(0);
    for (const heading of ['fake (in-process scripted)', 'anthropic (wire fake)', 'openai-chat (wire fake)', 'openai-responses (wire fake)']) {
      expect(out).toContain(heading);
    }
    for (const testCase of CONTRACT_CASES) {
      const lines = out.split('\n').filter((l) => l.includes(` ${testCase.id} — `));
      expect(lines, testCase.id).toHaveLength(4);
    }
    expect(out).toMatch(/SKIP overflow_during_generation — .*\(skipped: OpenAI Chat Completions has no stop reason/);
    expect(out).not.toContain('FAIL');
  });

  it('runs only the providers named, repeated or comma-separated', async () => {
    const { code, out } = await run({ provider: ['anthropic,fake'] });
    expect(code).toBe(0);
    expect(out).toContain('anthropic (wire fake)');
    expect(out).toContain('fake (in-process scripted)');
    expect(out).not.toContain('openai-chat');
  });

  it('prints JSON reports with --json', async () => {
    const { out } = await run({ provider: 'openai-chat', json: true });
    const parsed = JSON.parse(out) as { sections: { heading: string; reports: { id: string; status: string }[] }[] };
    expect(parsed.sections[0]!.reports).toHaveLength(CONTRACT_CASES.length);
  });

  it('exits 2 listing the known providers for an unknown one', async () => {
    const { code, err } = await run({ provider: 'bedrock' });
    expect(code).toBe(2);
    expect(err).toContain('unknown provider "bedrock"; known providers: anthropic, openai-chat, openai-responses, fake');
  });
});

describe('loopgate contract --live', () => {
  it('says clearly that it skipped each provider whose key is not set — and, having checked nothing, exits 1', async () => {
    const { code, out, err } = await run({ live: true }, {});
    expect(out).toContain('anthropic: skipped 5 live cases: ANTHROPIC_API_KEY is not set');
    expect(out).toContain('openai-chat: skipped 5 live cases: OPENAI_API_KEY is not set');
    expect(out).toContain('openai-responses: skipped 5 live cases: OPENAI_API_KEY is not set');
    expect(out).toContain('fake: no live API; skipped its live cases');
    expect(err).toMatch(/nothing was checked/);
    expect(code).toBe(1);
  });

  it('under CI, exits 2 naming each missing key before any request', async () => {
    const { code, out, err } = await run({ live: true, provider: ['anthropic', 'openai-chat'] }, { CI: 'true' });
    expect(code).toBe(2);
    expect(err).toMatch(/--live: ANTHROPIC_API_KEY, OPENAI_API_KEY not set/);
    expect(out).toBe('');
  });

  it.each(['false', '0'])('with CI=%s (CI turned off), skips the keyless providers as outside CI', async (ci) => {
    const { code, out, err } = await run({ live: true, provider: ['anthropic'] }, { CI: ci });
    expect(out).toContain('anthropic: skipped 5 live cases: ANTHROPIC_API_KEY is not set');
    expect(err).toMatch(/nothing was checked/);
    expect(code).toBe(1);
  });

  it('refuses --replay together with --live or --record', async () => {
    expect((await run({ live: true, replay: '/tmp' })).code).toBe(2);
    expect((await run({ record: '/tmp/x', replay: '/tmp' })).err).toContain('cannot be combined');
  });
});

describe('loopgate contract --replay with a bad recording directory', () => {
  it('exits 2 naming a directory that does not exist', async () => {
    const dir = join(tmpdir(), 'loopgate-no-recordings-here');
    const { code, err } = await run({ replay: dir });
    expect(code).toBe(2);
    expect(err).toContain(`recording directory ${dir} does not exist`);
  });

  it('exits 2 naming a path that is a file, an empty directory, or one without the provider', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'loopgate-rec-'));
    const file = join(dir, 'plain.txt');
    await writeFile(file, 'x');
    expect((await run({ replay: file })).err).toContain(`recording directory ${file} is not a directory`);
    const empty = await run({ replay: dir });
    expect(empty.code).toBe(2);
    expect(empty.err).toContain(`recording directory ${dir} holds no recordings`);
    const missing = await run({ replay: dir, provider: 'anthropic' });
    expect(missing.code).toBe(2);
    expect(missing.err).toContain(`has no recording for anthropic (expected ${join(dir, 'anthropic.recording.json')}`);
  });

  it('exits 2 naming a malformed recording and the problem', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'loopgate-rec-'));
    await writeFile(join(dir, 'anthropic.recording.json'), '{"format": "loopgate-contract-recording", ');
    const broken = await run({ replay: dir });
    expect(broken.code).toBe(2);
    expect(broken.err).toContain(`${join(dir, 'anthropic.recording.json')}: malformed recording, not valid JSON`);

    await mkdir(join(dir, 'shape'));
    await writeFile(
      join(dir, 'shape', 'openai-chat.recording.json'),
      JSON.stringify({ format: 'loopgate-contract-recording', version: 1, provider: 'openai-chat' }),
    );
    const shape = await run({ replay: join(dir, 'shape') });
    expect(shape.code).toBe(2);
    expect(shape.err).toMatch(/openai-chat\.recording\.json: malformed recording: model: /);
  });

  // Probe 58 LOW-4: a recording's cases the suite does not know were passed over in silence, the run ending "nothing was checked".
  it('exits 2 naming a recorded case the suite does not know, or one recorded twice', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'loopgate-rec-'));
    const recording = (ids: string[]) =>
      JSON.stringify({
        format: 'loopgate-contract-recording',
        version: 1,
        provider: 'anthropic',
        model: 'm',
        baseURL: 'https://api.anthropic.com',
        recordedAt: '2026-01-01T00:00:00.000Z',
        cases: ids.map((id) => ({ id, status: 'pass', result: {} })),
        exchanges: [],
      });
    const known = LIVE_CASES[0]!.id;
    await writeFile(join(dir, 'anthropic.recording.json'), recording([known, 'no_such_case']));
    const unknown = await run({ replay: dir });
    expect(unknown.code).toBe(2);
    expect(unknown.err).toMatch(/anthropic\.recording\.json: malformed recording: cases\.1\.id: "no_such_case" is no live case of this suite/);
    await writeFile(join(dir, 'anthropic.recording.json'), recording([known, known]));
    const twice = await run({ replay: dir });
    expect(twice.code).toBe(2);
    expect(twice.err).toContain(`cases.1.id: "${known}" is recorded twice`);
  });

  it('exits 2 for the in-process fake, which has nothing to replay', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'loopgate-rec-'));
    const { code, err } = await run({ replay: dir, provider: 'fake' });
    expect(code).toBe(2);
    expect(err).toContain('fake has no API to record or replay');
  });
});

describe('contractCommand', () => {
  const originalExitCode = process.exitCode;
  afterEach(() => {
    process.exitCode = originalExitCode;
    vi.restoreAllMocks();
  });

  it('sets process.exitCode', async () => {
    vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    await contractCommand.handler({ provider: ['fake'], _: [], $0: 'loopgate' });
    expect(process.exitCode).toBe(0);
    // A bad provider is an input error for main to report (exit 2).
    await expect(contractCommand.handler({ provider: ['nope'], _: [], $0: 'loopgate' })).rejects.toThrow(UsageError);
  });
});
