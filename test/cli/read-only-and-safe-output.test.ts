/**
 * What the command line does with good input it must not harm or trust:
 * `replay` leaves the store's bytes as they were (and adds no file beside it)
 * and prints a conversation's terminal escapes escaped; overlapping paths run
 * each scenario once; `--version`; a reader that closes the pipe early ends the
 * command quietly.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply } from '../../providers/fake/results.ts';
import { ScriptedModelClient } from '../../providers/fake/scripted.ts';
import { EXIT } from '../../src/cli/exit-codes.ts';
import { defaultHostConfig } from '../../src/host/config.ts';
import { AgentHost } from '../../src/host/host.ts';
import { readResultsFile } from '../../src/report/json.ts';
import { SqliteEventStore } from '../../src/stores/sqlite-store.ts';
import { loopgate, snapshot } from '../support/cli.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const USER_TEXT = 'hi \u001b]0;pwned\u0007 there \u009b2J';
const MODEL_TEXT = '\u001b[31mred\u001b[0m and \u202eevil';
/** What a terminal would act on: C0 but newline and tab, DEL, C1, bidi controls. */
// biome-ignore format: one character class
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

let dir = '';
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'loopgate-safe-output-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function conversation(store: SqliteEventStore): Promise<AgentHost> {
  const host = new AgentHost({ config: defaultHostConfig(), store, model: new ScriptedModelClient([reply(MODEL_TEXT)]) });
  await host.handle('conv-1', USER_TEXT);
  return host;
}

describe('loopgate replay is read-only and escapes what it prints', () => {
  it('leaves a store byte for byte as it was, adding no file beside it, in every mode', async () => {
    const where = join(dir, 'closed');
    mkdirSync(where);
    const store = new SqliteEventStore(join(where, 'store.db'));
    await (await conversation(store)).close();
    await store.close();
    const before = snapshot(where);
    for (const args of [
      ['replay', 'store.db'],
      ['replay', 'store.db', '--json'],
      ['replay', 'store.db', '--at', '5'],
      ['replay', 'store.db', '--conversation', 'conv-1', '--at', '5', '--json'],
    ]) {
      const result = await loopgate(args, where);
      expect(result.status, `${args.join(' ')}: ${result.stderr}`).toBe(EXIT.passed);
      expect(snapshot(where), args.join(' ')).toEqual(before);
    }
  });

  it('reads what a running host has not checkpointed yet, without writing the database file', async () => {
    const where = join(dir, 'live');
    mkdirSync(where);
    const store = new SqliteEventStore(join(where, 'store.db'));
    const host = await conversation(store); // still open: the events sit in the WAL
    try {
      const file = () => readFileSync(join(where, 'store.db'));
      const before = file();
      const result = await loopgate(['replay', 'store.db'], where);
      expect(result.status, result.stderr).toBe(EXIT.passed);
      expect(result.stdout).toMatch(/^conversation conv-1: \d+ events/);
      expect(file().equals(before)).toBe(true);
    } finally {
      await host.close();
      await store.close();
    }
  });

  it('prints ANSI, OSC, BEL, C1 and bidi controls from the conversation escaped, in text and in JSON', async () => {
    const where = join(dir, 'closed');
    const text = await loopgate(['replay', 'store.db'], where);
    expect(text.stdout).not.toMatch(RAW_CONTROL);
    expect(text.stdout).toContain('"hi \\x1b]0;pwned\\x07 there \\x9b2J"');
    expect(text.stdout).toContain('"\\x1b[31mred\\x1b[0m and \\u202eevil"');

    const request = await loopgate(['replay', 'store.db', '--at', '5'], where);
    expect(request.stdout).not.toMatch(RAW_CONTROL);
    expect(request.stdout).toContain('user: hi \\x1b]0;pwned\\x07 there \\x9b2J');

    const json = await loopgate(['replay', 'store.db', '--json'], where);
    expect(json.stdout).not.toMatch(RAW_CONTROL);
    // Still the same JSON value: the escapes are JSON's own.
    const events = JSON.parse(json.stdout) as { type: string; payload: { text?: string; content?: { text?: string }[] } }[];
    expect(events.find((e) => e.type === 'user.message')?.payload.text).toBe(USER_TEXT);
    expect(events.find((e) => e.type === 'assistant.message')?.payload.content?.[0]?.text).toBe(MODEL_TEXT);
  });
});

describe('loopgate run: overlapping paths', () => {
  it('runs each scenario once for run d d and run d d/x.yaml', async () => {
    const where = join(dir, 'overlap');
    mkdirSync(join(where, 'd'), { recursive: true });
    cpSync(join(ROOT, 'scenarios/bundled/outcomes'), join(where, 'd'), { recursive: true });
    const files = spawnSync('ls', [join(where, 'd')], { encoding: 'utf8' })
      .stdout.split('\n')
      .filter((f) => f.endsWith('.yaml'));
    for (const paths of [
      ['d', 'd'],
      ['d', `d/${files[0]}`],
      [`d/${files[0]}`, 'd', './d/'],
    ]) {
      // One host, so one case per scenario file (with both, each file is two cases: <id> and <id>@host).
      const result = await loopgate(['run', ...paths, '--host', 'loop', '--reporter', 'json', '--out', 'out'], where);
      expect(result.stderr, paths.join(' ')).not.toMatch(/share the id|internal error/);
      expect(result.status, `${paths.join(' ')}: ${result.stderr}`).toBe(EXIT.passed);
      const results = await readResultsFile(join(where, 'out/results.json'));
      expect(results.cases.map((c) => c.file).sort(), paths.join(' ')).toEqual(files.map((f) => join('d', f)).sort());
    }
  });
});

describe('the command itself', () => {
  it('--version prints the version', async () => {
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    const result = await loopgate(['--version'], dir);
    expect(result.status).toBe(EXIT.passed);
    expect(result.stdout).toBe(`${version}\n`);
  });

  it('--version answers alone: with anything else (--bogus, a command, a word) it is exit 2 naming what was typed, nothing printed', async () => {
    for (const args of [
      ['--version', '--bogus'],
      ['--bogus', '--version'],
      ['--version', 'extra'],
      ['run', '--version', '--grpe', 'x'],
    ]) {
      const result = await loopgate(args, dir);
      expect(result.status, args.join(' ')).toBe(EXIT.usage);
      expect(result.stdout, args.join(' ')).toBe('');
      expect(result.stderr, args.join(' ')).toMatch(/^loopgate: --version takes nothing else: got .+\n$/);
      for (const word of args.filter((a) => a !== '--version')) expect(result.stderr, args.join(' ')).toContain(word);
    }
  });

  it('ends quietly when the reader has closed the pipe (loopgate tables | true: EPIPE on the first write)', () => {
    const bin = `"${process.execPath}" "${join(ROOT, 'bin/loopgate.js')}"`;
    for (const reader of ['true', 'head -1']) {
      const result = spawnSync('bash', ['-c', `set -o pipefail; ${bin} tables | ${reader}`], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
      expect(result.stderr, reader).toBe('');
      expect(result.status, reader).toBe(EXIT.passed);
    }
  });
});
