import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FIXTURE_EXPECTATIONS, WIRE_FIXTURES_DIR, expectedSummary } from '../../../providers/recorded-fixtures.expected.ts';
import { anthropicWire } from '../../../providers/wire-fakes/anthropic.ts';
import { reply } from '../../../providers/fake/results.ts';
import { decodeCommand } from './decode-command.ts';
import { runDecodeCommand, type DecodeArgs } from './decode.ts';
import { UsageError } from '../usage-error.ts';

async function run(args: DecodeArgs) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runDecodeCommand(args, { out: (t) => out.push(t), err: (t) => err.push(t) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

async function tempFile(name: string, text: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'loopgate-decode-'));
  const path = join(dir, name);
  await writeFile(path, text);
  return path;
}

describe('loopgate decode', () => {
  for (const entry of FIXTURE_EXPECTATIONS) {
    it(`prints the normalized result for ${entry.provider}/${entry.file}`, async () => {
      const path = join(WIRE_FIXTURES_DIR, entry.provider, entry.file);
      const { code, out, err } = await run({ provider: entry.provider, file: path });
      expect(code).toBe(0);
      expect(JSON.parse(out)).toEqual(expectedSummary(entry, await readFile(path, 'utf8')));
      if (entry.status !== undefined) expect(err).toContain(`served with status ${entry.status}`);
    });
  }

  it('reads a .chunks.txt line cut mid-JSON as the bytes of the API would end: a malformed stream, not a reply missing its text (probe 29, F2)', async () => {
    for (const [provider, file] of [
      ['anthropic', 'anthropic-text.chunks.txt'],
      ['openai-responses', 'issue-20047-openai-responses.chunks.txt'],
    ] as const) {
      const lines = (await readFile(join(WIRE_FIXTURES_DIR, provider, file), 'utf8')).split('\n');
      const at = lines.findIndex((line) => line.includes('text_delta') || line.includes('output_text.delta'));
      expect(at, file).toBeGreaterThan(0);
      // Cut in the middle, and cut before its type can be read (after a keep-alive ping: probe 30, NEW-B).
      for (const cut of [lines[at]!.slice(0, Math.floor(lines[at]!.length / 2)), lines[at]!.slice(0, 5)]) {
        const garbled = lines.map((line, i) => (i === at ? cut : line));
        const { code, out } = await run({ provider, file: await tempFile(file, garbled.join('\n')) });
        expect(code, `${file}: ${cut}`).toBe(0);
        expect(JSON.parse(out), `${file}: ${cut}`).toMatchObject({ type: 'transport_error', kind: 'malformed_stream' });
      }
    }
  });

  it('serves the file with the status given', async () => {
    const path = join(WIRE_FIXTURES_DIR, 'anthropic', 'anthropic-issue-17366-error.json');
    const { code, out } = await run({ provider: 'anthropic', file: path, status: 529 });
    expect(code).toBe(0);
    expect(JSON.parse(out)).toMatchObject({ type: 'transport_error', kind: 'overloaded', status: 529 });
  });

  it('reads raw SSE text', async () => {
    const sse = anthropicWire
      .streamFrames({ blocks: [{ type: 'text', text: 'from raw SSE' }], stop: 'end', usage: { input: 1, output: 2 } })
      .map((f) => f.text)
      .join('');
    const { code, out } = await run({ provider: 'anthropic', file: await tempFile('capture.sse', sse) });
    expect(code).toBe(0);
    expect(JSON.parse(out)).toMatchObject({ type: 'reply', text: 'from raw SSE', stopReason: 'end_turn' });
  });

  it('runs a normalized result through the in-process fake', async () => {
    const { code, out } = await run({ provider: 'fake', file: await tempFile('result.json', JSON.stringify(reply('hello'))) });
    expect(code).toBe(0);
    expect(JSON.parse(out)).toEqual({ type: 'reply', text: 'hello', stopReason: 'end_turn', usage: { inputTokens: 10, outputTokens: 5 } });
  });

  it('exits 2 naming an unreadable file', async () => {
    const missing = join(tmpdir(), 'loopgate-no-such-file.json');
    const { code, out, err } = await run({ provider: 'anthropic', file: missing });
    expect(code).toBe(2);
    expect(out).toBe('');
    expect(err).toBe(`loopgate decode: ${missing}: cannot read the recorded response: no such file or directory (ENOENT)`);
  });

  it('exits 2 listing the known providers for an unknown one', async () => {
    const { code, err } = await run({ provider: 'gemini', file: 'x.json' });
    expect(code).toBe(2);
    expect(err).toContain('unknown provider "gemini"; known providers: anthropic, openai-chat, openai-responses, fake');
  });

  it('exits 2 for a body it cannot recognize, a bad fake result, or a bad status', async () => {
    expect((await run({ provider: 'openai-chat', file: await tempFile('notes.txt', 'hello there') })).code).toBe(2);
    const bad = await run({ provider: 'fake', file: await tempFile('r.json', '{"type":"reply"}') });
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('not a normalized ModelResult');
    expect((await run({ provider: 'anthropic', file: 'x.json', status: 42 })).code).toBe(2);
  });
});

describe('decodeCommand', () => {
  const originalExitCode = process.exitCode;
  afterEach(() => {
    process.exitCode = originalExitCode;
    vi.restoreAllMocks();
  });

  it('sets process.exitCode and writes the result to stdout', async () => {
    const written: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => (written.push(String(chunk)), true));
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const path = join(WIRE_FIXTURES_DIR, 'openai-chat', 'issue-15789-step-2.chunks.txt');
    await decodeCommand.handler({ provider: 'openai-chat', file: path, _: [], $0: 'loopgate' });
    expect(process.exitCode).toBe(0);
    expect(JSON.parse(written.join(''))).toMatchObject({ type: 'reply', text: 'POST_TOOL' });
    // A bad provider is an input error for main to report (exit 2), before anything is decoded.
    written.length = 0;
    await expect(decodeCommand.handler({ provider: 'nope', file: path, _: [], $0: 'loopgate' })).rejects.toThrow(UsageError);
    expect(written).toEqual([]);
  });

  it("a body that is not JSON is refused on one line, the parser's newline escaped", async () => {
    // Outside probe 38, F5: JSON.parse quotes the text it choked on, newline and all: the refusal printed as two lines.
    const dir = mkdtempSync(join(tmpdir(), 'loopgate-decode-'));
    const path = join(dir, 'notjson.json');
    writeFileSync(path, 'not json\n');
    try {
      const refused = await Promise.resolve()
        .then(() => decodeCommand.handler({ provider: 'anthropic', file: path, _: [], $0: 'loopgate' }))
        .then(
          () => undefined,
          (error: unknown) => error as Error,
        );
      expect(refused).toBeInstanceOf(UsageError);
      expect(refused!.message).toMatch(/not valid JSON/);
      expect(refused!.message).not.toContain('\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
