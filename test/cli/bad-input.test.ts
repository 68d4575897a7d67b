/**
 * Every bad input, through the real command line: exit 2, exactly one line on
 * stderr naming the input and the problem, no stack, nothing written or changed
 * (every file under the working directory is hashed before and after: the
 * reports, the baseline, the stores), and no hang (each case under a generous
 * bound). One row per input class an adversarial pass over the CLI found
 * mishandled.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, closeSync, cpSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, symlinkSync, writeFileSync, writeSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply } from '../../providers/fake/results.ts';
import { ScriptedModelClient } from '../../providers/fake/scripted.ts';
import { EXIT } from '../../src/cli/exit-codes.ts';
import { defaultHostConfig } from '../../src/host/config.ts';
import { AgentHost } from '../../src/host/host.ts';
import { SqliteEventStore } from '../../src/stores/sqlite-store.ts';
import { loopgate, snapshot } from '../support/cli.ts';

const ROOT = resolve(import.meta.dirname, '../..');
/** check-host against the bundled example agent, named outright (without a config it says it fell back to it). */
const BUNDLED = join(ROOT, 'scenarios/bundled/loopgate.config.ts');

const SCENARIO = readFileSync(join(ROOT, 'scenarios/bundled/outcomes/empty-reply-fails.yaml'), 'utf8');
const BASELINE = `${JSON.stringify({
  schema: 'loopgate.baseline/v1',
  tool: { name: 'loopgate', version: '0.1.0' },
  createdAt: '2025-01-01T00:00:00.000Z',
  seed: 1,
  cases: { s: { status: 'passed', steps: 1, tokens: 15 } },
})}\n`;

/** The "billion laughs": nine levels of ten aliases each, 10^9 nodes once expanded. */
const ALIAS_BOMB = ['name: bomb', 'a0: &a0 [x]', ...Array.from({ length: 9 }, (_, i) => `a${i + 1}: &a${i + 1} [${Array(10).fill(`*a${i}`).join(', ')}]`)].join(
  '\n',
);

let base = '';

/** A real conversation in a SQLite store, its text full of terminal escapes. */
async function writeStore(path: string): Promise<void> {
  const store = new SqliteEventStore(path);
  const model = new ScriptedModelClient([reply('\u001b[31mred\u001b[0m and \u202eevil\u001b]8;;https://example.test\u0007link')]);
  const host = new AgentHost({ config: defaultHostConfig(), store, model });
  await host.handle('conv-1', 'hi \u001b]0;pwned\u0007 there \u009b2J');
  await host.close();
  await store.close();
}

/** A copy of the store changed with SQL (as another program, or a bit flip, would). */
function alteredStore(work: string, name: string, sql: string): string {
  const path = join(work, name);
  cpSync(join(work, 'store.db'), path);
  const db = new DatabaseSync(path);
  db.exec(sql);
  db.close();
  return name;
}

beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), 'loopgate-bad-input-'));
  writeFileSync(join(base, 's.yaml'), SCENARIO);
  writeFileSync(join(base, 'b.json'), BASELINE);
  writeFileSync(join(base, 'notes.txt'), 'not a directory\n');
  mkdirSync(join(base, 'reports'));
  writeFileSync(join(base, 'reports', 'results.json'), '{"schema": "loopgate.results/v2", "from": "the last run"}\n');
  await writeStore(join(base, 'store.db'));
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

interface BadInput {
  readonly name: string;
  /** Makes what the case needs in `work` (a copy of the base fixtures); returns the arguments. */
  readonly setup: (work: string) => string[];
  /** What the one line must name. */
  readonly names: RegExp;
  /**
   * The input showed itself only after the run began (nothing can find it before): as an
   * interrupt, it leaves no report in `out` — not even the earlier run's, which would pass
   * for this one's — and writes nothing.
   */
  readonly afterStart?: true;
}

const fifo = (path: string) => execFileSync('mkfifo', [path]);

const CASES: readonly BadInput[] = [
  {
    name: 'a mistyped flag: stops before running, keeps the baseline and the reports',
    setup: () => ['run', 's.yaml', '--baseline', 'b.json', '--update-baseline', '--verbos'],
    names: /^loopgate: Unknown argument: verbos/,
  },
  // Flags for live runs given to a scripted run were ignored without a word (outside probe 6).
  {
    name: 'run --repeat without --live',
    setup: () => ['run', 's.yaml', '--repeat', '5'],
    names: /^loopgate: --repeat is for --live runs \(runs per live scenario\); add --live or drop it$/,
  },
  {
    name: 'run --provider without --live',
    setup: () => ['run', 's.yaml', '--provider', 'anthropic'],
    names: /^loopgate: --provider is for --live runs \(the scripted run needs no provider\); add --live or drop it$/,
  },
  { name: 'decode without --provider', setup: () => ['decode', 's.yaml'], names: /Missing required argument: provider/ },
  { name: 'an unknown command', setup: () => ['frobnicate'], names: /frobnicate/ },
  // Outside probe 35, F6: it was parsed as YAML, and said "Invalid input: expected object, received string".
  {
    name: 'run of a file that is no scenario file (.md)',
    setup: (w) => {
      writeFileSync(join(w, 'notes.md'), '# Notes\n\nNot a scenario.\n');
      return ['run', 'notes.md'];
    },
    names: /^loopgate: notes\.md: not a scenario file: scenario files end in \.yaml or \.yml$/,
  },
  { name: 'run /dev/null (a device given as a path)', setup: () => ['run', '/dev/null'], names: /^loopgate: \/dev\/null: is a character device/ },
  {
    name: 'a FIFO named *.yaml in a scenario folder (read forever before)',
    setup: (w) => {
      mkdirSync(join(w, 'suite'));
      writeFileSync(join(w, 'suite', 'ok.yaml'), SCENARIO);
      fifo(join(w, 'suite', 'pipe.yaml'));
      return ['run', 'suite'];
    },
    names: /^loopgate: suite\/pipe\.yaml: is a FIFO \(named pipe\), not a regular file/,
  },
  {
    name: 'a /dev/zero symlink named *.yaml in a scenario folder',
    setup: (w) => {
      mkdirSync(join(w, 'suite'));
      symlinkSync('/dev/zero', join(w, 'suite', 'zero.yaml'));
      return ['run', 'suite'];
    },
    names: /^loopgate: suite\/zero\.yaml: is a character device, not a regular file/,
  },
  // A symlink loop was "no such file or directory" for a file `ls` lists (outside probe 14, CLI-2).
  {
    name: 'a scenario path that is a symbolic link loop',
    setup: (w) => (symlinkSync('loopb.yaml', join(w, 'loopa.yaml')), symlinkSync('loopa.yaml', join(w, 'loopb.yaml')), ['run', 'loopa.yaml']),
    names: /^loopgate: loopa\.yaml: a symbolic link loop: too many levels of symbolic links \(ELOOP\)$/,
  },
  {
    name: 'a symbolic link loop named *.yaml in a scenario folder',
    setup: (w) => {
      mkdirSync(join(w, 'suite'));
      writeFileSync(join(w, 'suite', 'ok.yaml'), SCENARIO);
      symlinkSync('self.yaml', join(w, 'suite', 'self.yaml'));
      return ['run', 'suite'];
    },
    names: /^loopgate: suite\/self\.yaml: cannot read the scenario file: a symbolic link loop: too many levels of symbolic links \(ELOOP\)$/,
  },
  // The scenario README says a name is one line; a line break in it passed (outside probe 14, CLI-4).
  {
    name: 'a scenario name with a line break',
    setup: (w) => (writeFileSync(join(w, 'two-lines.yaml'), SCENARIO.replace(/^name: .*$/m, 'name: "multi\\nline name"')), ['run', 'two-lines.yaml']),
    names: /^loopgate: two-lines\.yaml:\d+:7: name: one line saying what the scenario proves: it holds a line break$/,
  },
  {
    name: 'a YAML alias bomb',
    setup: (w) => (writeFileSync(join(w, 'bomb.yaml'), ALIAS_BOMB), ['run', 'bomb.yaml']),
    names: /^loopgate: bomb\.yaml:\d+:\d+: YAML: aliases expand this document to more than 100000 nodes/,
  },
  // A tag loopgate does not know was dropped without a word, the value read as plain text (outside probe 13, C4).
  {
    name: 'an unknown YAML tag in a scenario',
    setup: (w) => (writeFileSync(join(w, 'tag.yaml'), `${SCENARIO.replace(/^name: .*$/m, 'name: !!js/function "function(){}"')}`), ['run', 'tag.yaml']),
    names: /^loopgate: tag\.yaml:\d+:7: YAML: unknown tag !!js\/function: loopgate reads plain YAML \(no tags\); drop it$/,
  },
  {
    name: 'invalid UTF-8 in a scenario',
    setup: (w) => (
      writeFileSync(join(w, 'latin1.yaml'), Buffer.concat([Buffer.from('name: caf'), Buffer.from([0xe9]), Buffer.from('\n')])), ['run', 'latin1.yaml']
    ),
    names: /^loopgate: latin1\.yaml: is not valid UTF-8: invalid byte sequence at byte offset 9$/,
  },
  {
    name: 'a scenario file past the size limit',
    setup: (w) => (writeFileSync(join(w, 'big.yaml'), `name: big\n# ${'x'.repeat(5 * 1024 * 1024)}\n`), ['run', 'big.yaml']),
    names: /^loopgate: big\.yaml: is \d+ bytes; the scenario file may be at most 4 MiB/,
  },
  {
    name: 'two scenario files with one id',
    setup: (w) => {
      mkdirSync(join(w, 'twins'));
      writeFileSync(join(w, 'twins', 'a.yaml'), SCENARIO);
      writeFileSync(join(w, 'twins', 'a.yml'), SCENARIO);
      return ['run', 'twins', '--reporter', 'console'];
    },
    names: /^loopgate: two cases share the id scenario:twins\/a \(twins\/a\.yaml and twins\/a\.yml; rename one\)$/,
  },
  {
    name: '--out pointing at a file',
    setup: () => ['run', 's.yaml', '--out', 'notes.txt'],
    names: /^loopgate: notes\.txt: is a regular file; the report directory must be a directory$/,
  },
  {
    name: '--out under a file',
    setup: () => ['run', 's.yaml', '--out', 'notes.txt/reports'],
    names: /^loopgate: notes\.txt\/reports: cannot be the report directory: .*notes\.txt is a regular file/,
  },
  {
    name: '--out /proc/x (spun forever before)',
    setup: () => ['run', 's.yaml', '--out', '/proc/loopgate-x'],
    names: /^loopgate: \/proc\/loopgate-x: cannot create the report directory: /,
  },
  {
    name: '--out in a read-only place',
    setup: () => ['run', 's.yaml', '--out', '/sys/loopgate-x'],
    names: /^loopgate: \/sys\/loopgate-x: cannot create the report directory: /,
  },
  {
    name: '--update-baseline under a file',
    setup: () => ['run', 's.yaml', '--baseline', 'notes.txt/b.json', '--update-baseline'],
    names: /^loopgate: notes\.txt\/b\.json: cannot be the baseline: .*notes\.txt is a regular file, not a directory$/,
  },
  {
    name: '--out an existing directory where no file can be made (/proc: found only after the run before)',
    setup: () => ['run', 's.yaml', '--out', '/proc'],
    names: /^loopgate: \/proc: cannot write files in the report directory: /,
  },
  {
    name: '--update-baseline onto the scenario file itself (it was overwritten with JSON before)',
    setup: () => ['run', 's.yaml', '--baseline', 's.yaml', '--update-baseline'],
    names: /^loopgate: --update-baseline: refusing to overwrite s\.yaml: not valid JSON.*only a loopgate baseline or results\.json\)$/,
  },
  {
    name: '--update-baseline onto a report the run writes',
    setup: () => ['run', 's.yaml', '--baseline', 'reports/results.json', '--update-baseline'],
    names: /^loopgate: --baseline reports\/results\.json: this run writes its json report there; keep the baseline outside --out$/,
  },
  {
    name: 'merge-reports --out where an input lies (a shard was overwritten before)',
    setup: (w) => {
      for (const shard of ['s1', 's2']) {
        mkdirSync(join(w, shard));
        writeFileSync(join(w, shard, 'results.json'), readFileSync(join(w, 'reports', 'results.json')));
      }
      return ['merge-reports', 's1', 's2', '--out', 's1'];
    },
    names: /^loopgate: merge-reports --out s1: would overwrite the input s1\/results\.json; write the merged reports elsewhere$/,
  },
  // Outside probe 64, F6, F7: through a link to the same folder the inputs were overwritten (exit 0).
  {
    name: 'merge-reports --out a link to the folder where an input lies',
    setup: (w) => {
      for (const shard of ['s1', 's2']) {
        mkdirSync(join(w, shard));
        writeFileSync(join(w, shard, 'results.json'), readFileSync(join(w, 'reports', 'results.json')));
      }
      symlinkSync('s1', join(w, 'link'));
      return ['merge-reports', 's1', 's2', '--out', 'link'];
    },
    names: /^loopgate: merge-reports --out link: would overwrite the input s1\/results\.json; write the merged reports elsewhere$/,
  },
  {
    name: 'run --out a link to the folder of the scenario files it checks',
    setup: (w) => {
      symlinkSync('.', join(w, 'here'));
      return ['run', 's.yaml', '--out', 'here'];
    },
    names: /^loopgate: --out here: holds the scenario files this run checks \(s\.yaml\); write the reports elsewhere \(the default is reports\/\)$/,
  },
  // Outside probe 53, LOW-2: the four reports were written in among the scenarios, exit 0.
  {
    name: 'run --out the folder of the scenario files it checks',
    setup: () => ['run', 's.yaml', '--out', '.'],
    names: /^loopgate: --out \.: holds the scenario files this run checks \(s\.yaml\); write the reports elsewhere \(the default is reports\/\)$/,
  },
  {
    name: 'run --out a scenario folder of the config',
    setup: (w) => {
      mkdirSync(join(w, 'sc'));
      writeFileSync(join(w, 'sc', 'a.yaml'), SCENARIO);
      writeFileSync(join(w, 'loopgate.config.mjs'), "export default { scenarios: ['sc'] };\n");
      return ['run', '--out', 'sc'];
    },
    names: /^loopgate: --out sc: holds the scenario files this run checks \(sc\/a\.yaml\); write the reports elsewhere \(the default is reports\/\)$/,
  },
  {
    name: 'fuzz --out a scenario folder of the config (its reports among the scenario files)',
    setup: (w) => {
      mkdirSync(join(w, 'sc'));
      writeFileSync(join(w, 'sc', 'a.yaml'), SCENARIO);
      writeFileSync(join(w, 'loopgate.config.mjs'), "export default { scenarios: ['sc'] };\n");
      return ['fuzz', '--runs', '5', '--out', 'sc'];
    },
    names: /^loopgate: --out sc: is a scenario folder of loopgate\.config\.mjs; write the fuzz reports elsewhere \(the default is reports\/\)$/,
  },
  { name: 'a missing baseline', setup: () => ['run', 's.yaml', '--baseline', 'none.json'], names: /^loopgate: none\.json: no such baseline file/ },
  { name: 'a baseline that is not JSON', setup: () => ['run', 's.yaml', '--baseline', 's.yaml'], names: /^loopgate: s\.yaml: not valid JSON/ },
  {
    name: 'a baseline that is a FIFO',
    setup: (w) => (fifo(join(w, 'b.fifo')), ['run', 's.yaml', '--baseline', 'b.fifo']),
    names: /^loopgate: b\.fifo: is a FIFO/,
  },
  {
    name: 'replay: a store with an unknown event type',
    setup: (w) => ['replay', alteredStore(w, 'unknown.db', "UPDATE events SET type = 'x.from_the_future' WHERE seq = 3")],
    names: /^loopgate: unknown\.db conversation "conv-1" record seq 3: unknown event type "x\.from_the_future", and it is not marked ignorable/,
  },
  {
    name: 'replay: a store with a gap',
    setup: (w) => ['replay', alteredStore(w, 'gap.db', 'DELETE FROM events WHERE seq = 2')],
    names: /^loopgate: sqlite:gap\.db: conversation "conv-1" record seq 2 is corrupt: the record is missing/,
  },
  {
    name: 'replay: an empty file (no extension)',
    setup: (w) => {
      writeFileSync(join(w, 'afile'), '');
      return ['replay', 'afile', '--conversation', 'c1'];
    },
    names: /^loopgate: afile: empty: not a SQLite store \(\.db\) or an events file \(\.json \/ \.jsonl\) of event records$/,
  },
  {
    name: 'replay: a file of blank lines',
    setup: (w) => {
      writeFileSync(join(w, 'blank.jsonl'), '\n  \n\n');
      return ['replay', 'blank.jsonl'];
    },
    names: /^loopgate: blank\.jsonl: empty: not a SQLite store \(\.db\) or an events file \(\.json \/ \.jsonl\) of event records$/,
  },
  {
    name: 'replay: an events file holding an empty list (as an empty .jsonl or a store with no conversation)',
    setup: (w) => {
      writeFileSync(join(w, 'none.json'), '[ ]\n');
      return ['replay', 'none.json'];
    },
    names: /^loopgate: none\.json: holds no event records \(an empty list\); a conversation's events file starts at seq 0$/,
  },
  {
    name: 'replay: a JSON object that is not an event record (said "seq gap: expected seq 0, found undefined": outside probe 6)',
    setup: (w) => {
      writeFileSync(join(w, 'wrongtype.json'), '{"events": 5}\n');
      return ['replay', 'wrongtype.json'];
    },
    names: /^loopgate: wrongtype\.json record seq 0: not an event record: it has no seq \(a record has seq, type, v, at, ignorable and payload\)$/,
  },
  {
    name: 'replay: a pretty-printed results.json (said "not a JSON record" at its valid first line: outside probe 33, C1)',
    setup: (w) => {
      writeFileSync(join(w, 'results.json'), JSON.stringify({ loopgate: '0.1.0', cases: [{ id: 'scenario:a', status: 'passed' }] }, null, 2));
      return ['replay', 'results.json'];
    },
    names:
      /^loopgate: results\.json: a loopgate results file \(results\.json\), not a conversation's events: give a SQLite store \(\.db\), or an events file \(a JSON array of event records, or JSON Lines: one record per line\)$/,
  },
  {
    name: 'replay: a peer verdicts file (said only "a JSON object": outside probe 34, LOW)',
    setup: (w) => {
      writeFileSync(join(w, 'ai-sdk.json'), JSON.stringify({ schema: 'loopgate.peer-verdicts/v1', loop: 'ai-sdk', cases: {} }, null, 2));
      return ['replay', 'ai-sdk.json'];
    },
    names:
      /^loopgate: ai-sdk\.json: a loopgate file of another kind \(loopgate\.peer-verdicts\/v1\), not a conversation's events: give a SQLite store \(\.db\), or an events file \(a JSON array of event records, or JSON Lines: one record per line\)$/,
  },
  {
    name: 'replay: a list of numbers (said "record seq 0: not an object")',
    setup: (w) => {
      writeFileSync(join(w, 'numbers.json'), '[1, 2]\n');
      return ['replay', 'numbers.json'];
    },
    names: /^loopgate: numbers\.json record seq 0: not an event record: a number \(a record has seq, type, v, at, ignorable and payload\)$/,
  },
  {
    name: 'replay: a pretty-printed JSON object that is no event record',
    setup: (w) => {
      writeFileSync(join(w, 'object.json'), JSON.stringify({ conversation: 'c1', items: [1, 2] }, null, 2));
      return ['replay', 'object.json'];
    },
    names: /^loopgate: object\.json: a JSON object, not event records: an events file is a JSON array of event records, or JSON Lines: one record per line$/,
  },
  {
    name: 'replay: JSON Lines with a broken line names it, and what the file should be',
    setup: (w) => {
      writeFileSync(join(w, 'torn.jsonl'), '{"seq":0}\n{"seq":\n');
      return ['replay', 'torn.jsonl'];
    },
    names: /^loopgate: torn\.jsonl:2: not a JSON record \(an events file is a JSON array of event records, or JSON Lines: one record per line\): /,
  },
  {
    name: 'replay: a payload that is not JSON',
    setup: (w) => ['replay', alteredStore(w, 'torn.db', `UPDATE events SET payload = '{"text": "hi' WHERE seq = 2`)],
    names: /^loopgate: sqlite:torn\.db: conversation "conv-1" record seq 2 is corrupt: payload is not valid JSON/,
  },
  {
    name: 'replay: a payload of the wrong shape',
    setup: (w) => ['replay', alteredStore(w, 'shape.db', `UPDATE events SET payload = '{"text": 42}' WHERE seq = 2`)],
    names: /^loopgate: shape\.db conversation "conv-1" record seq 2: corrupt "user\.message" payload/,
  },
  {
    name: 'replay: a damaged page',
    setup: (w) => {
      cpSync(join(w, 'store.db'), join(w, 'damaged.db'));
      const fd = openSync(join(w, 'damaged.db'), 'r+');
      writeSync(fd, Buffer.alloc(200, 0xa5), 0, 200, 4096); // the events table's root page
      closeSync(fd);
      return ['replay', 'damaged.db'];
    },
    names: /^loopgate: sqlite:damaged\.db: .*database disk image is malformed$/,
  },
  {
    name: "replay: another application's SQLite file (left as it was, no table added)",
    setup: (w) => {
      const db = new DatabaseSync(join(w, 'other-app.db'));
      db.exec("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('mine')");
      db.close();
      return ['replay', 'other-app.db'];
    },
    names: /^loopgate: sqlite:other-app\.db: cannot use this file as an event store .*: it holds no loopgate events table/,
  },
  {
    name: 'replay: a FIFO named *.db',
    setup: (w) => (fifo(join(w, 'pipe.db')), ['replay', 'pipe.db']),
    names: /^loopgate: pipe\.db: is a FIFO \(named pipe\)/,
  },
  {
    name: 'replay: --at past the end',
    setup: () => ['replay', 'store.db', '--at', '999'],
    names: /^loopgate: --at 999: conversation conv-1 has seqs 0\.\.\d+$/,
  },
  // JSON.parse quotes the text it stopped in, newline and all: the one line broke in two (outside probe 13, C2).
  {
    name: 'merge-reports: a file that is not JSON, a newline in it',
    setup: (w) => (writeFileSync(join(w, 'host.json'), 'vm\nhost\n'), ['merge-reports', 'host.json']),
    names: /^loopgate: host\.json: not valid JSON \(.*"vm\\x0ahost\\x0a" is not valid JSON\); expected loopgate results file/,
  },
  { name: 'merge-reports: a FIFO', setup: (w) => (fifo(join(w, 'r.json')), ['merge-reports', 'r.json']), names: /^loopgate: r\.json: is a FIFO/ },
  { name: 'decode: a FIFO', setup: (w) => (fifo(join(w, 'r.sse')), ['decode', '--provider', 'anthropic', 'r.sse']), names: /^loopgate: r\.sse: is a FIFO/ },
  {
    name: 'decode: a bad --timeout',
    setup: () => ['decode', '--provider', 'anthropic', 's.yaml', '--timeout', '0'],
    names: /^loopgate: --timeout 0: expected a number of seconds, at least 0\.001 \(a millisecond\)$/,
  },
  {
    name: 'contract --replay: a recording that is a FIFO',
    setup: (w) => {
      mkdirSync(join(w, 'rec'));
      fifo(join(w, 'rec', 'anthropic.recording.json'));
      return ['contract', '--replay', 'rec'];
    },
    names: /^loopgate: rec\/anthropic\.recording\.json: is a FIFO/,
  },
  // Probe 18: both removed the user's own docs/summary.md (or junit.xml) as "the reports an earlier run left there".
  {
    name: 'run --out over a summary.md loopgate did not write',
    setup: (work) => {
      mkdirSync(join(work, 'docs'));
      writeFileSync(join(work, 'docs', 'summary.md'), '# Release notes\n\nWritten by hand.\n');
      return ['run', 's.yaml', '--out', 'docs'];
    },
    names: /^loopgate: docs\/summary\.md: is not a markdown report of loopgate's: the run would replace it \(move it, or choose another --out\)$/,
  },
  {
    name: 'fuzz --out over a junit.xml another tool wrote',
    setup: (work) => {
      mkdirSync(join(work, 'ci'));
      writeFileSync(join(work, 'ci', 'junit.xml'), '<?xml version="1.0"?>\n<testsuites name="jest" tests="3"></testsuites>\n');
      return ['fuzz', '--runs', '5', '--out', 'ci'];
    },
    names: /^loopgate: ci\/junit\.xml: is not a junit report of loopgate's: the run would replace it \(move it, or choose another --out\)$/,
  },
  // Outside probe 64, F12: 30 s of CPU inside fast-check, then exit 1 blaming the code under test.
  {
    name: 'fuzz --path whose run is past any search’s runs',
    setup: () => ['fuzz', '--runs', '5', '--seed', '1', '--path', '999999999999'],
    names:
      /^loopgate: --path 999999999999: names run 999999999999, past the runs any search makes \(fewer than 100000000, in its 24 hours at most\); give the --path printed with the failure$/,
  },
  {
    name: 'fuzz --out pointing at a file',
    setup: () => ['fuzz', '--runs', '1', '--out', 'notes.txt'],
    names: /^loopgate: notes\.txt: is a regular file; the report directory must be a directory$/,
  },
  {
    name: 'a --grep that backtracks without end over a long case id',
    setup: (w) => (
      writeFileSync(join(w, 'a-scenario-with-a-rather-long-file-name-to-match.yaml'), SCENARIO),
      ['run', 'a-scenario-with-a-rather-long-file-name-to-match.yaml', '--grep', '^(([a-z:/_-])+)+X$']
    ),
    names: /^loopgate: --grep "\^\(\(\[a-z:\/_-\]\)\+\)\+X\$": did not finish matching the case ids within \d+ ms/,
  },
  {
    name: 'two tools of one name in a scenario (the later silently won)',
    setup: (w) => (
      writeFileSync(
        join(w, 'dup-tool.yaml'),
        SCENARIO.replace(/^provider:/m, 'tools:\n  - name: newt\n    description: a\n  - name: newt\n    description: b\nprovider:'),
      ),
      ['run', 'dup-tool.yaml']
    ),
    names: /^loopgate: dup-tool\.yaml:\d+:\d+: tools\[1\]\.name: the tool "newt" is declared twice \(first at line \d+, tools\[0\]\)$/,
  },
  // A config with a syntax error: the file, line and column (the location was dropped).
  {
    name: 'a config with a syntax error',
    setup: (w) => (
      writeFileSync(join(w, 'caret.config.ts'), 'export default {\n  agents: {},\n  out: )\n};\n'), ['run', 's.yaml', '--config', 'caret.config.ts']
    ),
    names: /^loopgate: \/.*\/caret\.config\.ts:3:8: could not be loaded: SyntaxError: Expression expected$/,
  },
  {
    name: 'a config cut short (the error at its end)',
    setup: (w) => (writeFileSync(join(w, 'eof.config.ts'), 'export default defineConfig({ agents: {\n'), ['run', 's.yaml', '--config', 'eof.config.ts']),
    names: /^loopgate: \/.*\/eof\.config\.ts:1:40: could not be loaded: SyntaxError: Unexpected token `<eof>`/,
  },
  {
    name: 'a syntax error in a file the config imports',
    setup: (w) => {
      writeFileSync(join(w, 'helper.ts'), 'export const x = {\n  y: ]\n};\n');
      writeFileSync(join(w, 'imports.config.ts'), "import { x } from './helper.ts';\nexport default { x };\n");
      return ['run', 's.yaml', '--config', 'imports.config.ts'];
    },
    names: /^loopgate: \/.*\/imports\.config\.ts: could not be loaded: \/.*\/helper\.ts:2:6: SyntaxError: Expression expected$/,
  },
  {
    name: 'a JavaScript config with a syntax error',
    setup: (w) => (
      writeFileSync(join(w, 'plain.config.mjs'), 'const a = 1;\nexport default {\n  out: )\n};\n'), ['run', 's.yaml', '--config', 'plain.config.mjs']
    ),
    names: /^loopgate: \/.*\/plain\.config\.mjs:3:8: could not be loaded: SyntaxError: Unexpected token '\)'$/,
  },
  // Nesting past the depth limit, deep enough to overflow the parser's stack ("Maximum call stack size exceeded" before).
  {
    name: 'a scenario nested 5,000 flow levels deep',
    setup: (w) => (writeFileSync(join(w, 'deep.yaml'), `${SCENARIO}x: ${'['.repeat(5000)}${']'.repeat(5000)}\n`), ['run', 'deep.yaml']),
    names: /^loopgate: deep\.yaml:\d+:\d+: YAML: nested deeper than 500 levels$/,
  },
  {
    name: 'a scenario nested 1,000,000 flow levels deep (in bounded time)',
    setup: (w) => (writeFileSync(join(w, 'deeper.yaml'), `${SCENARIO}x: ${'{'.repeat(1_000_000)}\n`), ['run', 'deeper.yaml']),
    names: /^loopgate: deeper\.yaml:\d+:\d+: YAML: nested deeper than 500 levels$/,
  },
  {
    name: 'a scenario nested 5,000 block sequences deep',
    setup: (w) => (writeFileSync(join(w, 'dashes.yaml'), `${SCENARIO}x:\n${'- '.repeat(5000)}1\n`), ['run', 'dashes.yaml']),
    names: /^loopgate: dashes\.yaml:\d+:\d+: YAML: nested deeper than 500 levels$/,
  },
  {
    name: 'a host config nested 5,000 levels deep (check-host)',
    setup: (w) => (
      writeFileSync(join(w, 'deep-host.yaml'), `model:\n  provider: anthropic\n  name: claude-sonnet-4-6\nx: ${'['.repeat(5000)}${']'.repeat(5000)}\n`),
      ['check-host', 'deep-host.yaml', '--agent', 'support', '--config', BUNDLED]
    ),
    names: /^loopgate: deep-host\.yaml:\d+:\d+: YAML: nested deeper than 500 levels$/,
  },
  // check-host: a config that would serve the scripted fake, and a tool both denied and asked (both passed "OK").
  {
    name: 'check-host: a config naming no model (it would serve the fake)',
    setup: (w) => (
      writeFileSync(join(w, 'no-model.yaml'), 'tools:\n  deny: [issue_refund]\n'), ['check-host', 'no-model.yaml', '--agent', 'support', '--config', BUNDLED]
    ),
    names: /^loopgate: no-model\.yaml:1:1: model\.provider: not set: the host would serve loopgate's scripted fake model; name the provider/,
  },
  {
    name: 'check-host: a tool both denied and asked',
    setup: (w) => (
      writeFileSync(
        join(w, 'both.yaml'),
        'model:\n  provider: anthropic\n  name: claude-sonnet-4-6\ntools:\n  deny: [issue_refund]\n  ask: [notify_customer, issue_refund]\n',
      ),
      ['check-host', 'both.yaml', '--agent', 'support', '--config', BUNDLED]
    ),
    names:
      /^loopgate: both\.yaml:6:26: tools\.ask\[1\]: issue_refund is also denied by tools\.deny\[0\] \(both\.yaml:5:10\): a denied tool is never asked for; keep it in one list$/,
  },
  // One misspelled deny entry printed a header line naming the registered tools, then the problem (outside probe 41, F7).
  {
    name: 'check-host: a misspelled deny entry',
    setup: (w) => (
      writeFileSync(join(w, 'typo.yaml'), 'model:\n  provider: anthropic\n  name: claude-sonnet-4-6\ntools:\n  deny: [issue_refnd]\n'),
      ['check-host', 'typo.yaml', '--agent', 'support', '--config', BUNDLED]
    ),
    names:
      /^loopgate: typo\.yaml:5:10: tools\.deny\[0\]: "issue_refnd" is not a registered tool \(registered: [a-z_, ]*issue_refund[a-z_, ]*\); did you mean "issue_refund"\?$/,
  },
  // A scheme the SDKs cannot speak passed "OK"; the host failed every turn at its first request (outside probe 14, CLI-3).
  {
    name: 'check-host: a model baseURL that is not http(s)',
    setup: (w) => (
      writeFileSync(join(w, 'ftp.yaml'), 'model:\n  provider: anthropic\n  name: claude-sonnet-4-6\n  baseURL: "ftp://x"\n'),
      ['check-host', 'ftp.yaml', '--agent', 'support', '--config', BUNDLED]
    ),
    names: /^loopgate: ftp\.yaml:4:\d+: model\.baseURL: ftp: is not supported: the provider SDKs speak http:\/\/ or https:\/\/ only$/,
  },
  // What the wire cannot say was found only when the case ran: exit 1, a stack trace, four reports written (outside probe 13, C1).
  {
    name: 'a wire step the provider cannot say (OpenAI reports no cache writes)',
    setup: (w) => (
      writeFileSync(
        join(w, 'cache-write.yaml'),
        'name: cache write on OpenAI\nprovider:\n  kind: wire\n  provider: openai-responses\n  script:\n    - reply: ok\n      usage: { input: 10, output: 1, cacheWrite: 5 }\ninbox:\n  - say: hi\nexpect:\n  outcome: replied\n',
      ),
      ['run', 'cache-write.yaml']
    ),
    names:
      /^loopgate: cache-write\.yaml:6:7: provider\.script\[0\]: openai-responses cannot say this step: OpenAI reports no cache-write tokens: its usage cannot say them$/,
  },
  // A reply quoting the key (stop 68): only a reply can, and only on the wire.
  {
    name: 'a wire step quoting the key that is no reply',
    setup: (w) => (
      writeFileSync(
        join(w, 'quote-refusal.yaml'),
        'name: q\nprovider:\n  kind: wire\n  provider: anthropic\n  script:\n    - refusal: no\n      quotesKey: true\ninbox:\n  - say: hi\nexpect:\n  outcome: replied\n',
      ),
      ['run', 'quote-refusal.yaml']
    ),
    names: /^loopgate: quote-refusal\.yaml:7:18: provider\.script\[0\]\.quotesKey: quotesKey goes with reply \(the answer that quotes the key\)$/,
  },
  // Filled in too, the author's own template read back as a broken adapter (review of stop 68, LOW-2).
  {
    name: 'a reply quoting the key that writes {{credential}} itself',
    setup: (w) => (
      writeFileSync(
        join(w, 'quote-template.yaml'),
        'name: q\nprovider:\n  kind: wire\n  provider: anthropic\n  script:\n    - reply: "Use {{credential}} here"\n      quotesKey: true\ninbox:\n  - say: hi\nexpect:\n  outcome: replied\n',
      ),
      ['run', 'quote-template.yaml']
    ),
    names:
      /^loopgate: quote-template\.yaml:6:14: provider\.script\[0\]\.reply: with quotesKey the wire writes the key itself, after the reply: leave \{\{credential…\}\} out of reply and text$/,
  },
  {
    name: 'a scripted reply quoting the key (only the wire quotes one)',
    setup: (w) => (
      writeFileSync(
        join(w, 'quote-scripted.yaml'),
        'name: q\nprovider:\n  script:\n    - reply: ok\n      quotesKey: base64\ninbox:\n  - say: hi\nexpect:\n  outcome: replied\n',
      ),
      ['run', 'quote-scripted.yaml']
    ),
    names: /^loopgate: quote-scripted\.yaml:5:18: provider\.script\[0\]\.quotesKey: quotesKey says how the provider words its answer on the wire/,
  },
  // The wire fake cannot write a negative uncached count: the case ran and blamed the adapter (outside probe 14, CLI-6).
  {
    name: 'a wire step whose cache tokens exceed its input (input counts them)',
    setup: (w) => (
      writeFileSync(
        join(w, 'cache-over-input.yaml'),
        'name: cache over input\nprovider:\n  kind: wire\n  provider: anthropic\n  script:\n    - reply: ok\n      usage: { input: 100, output: 40, cacheRead: 50, cacheWrite: 900 }\ninbox:\n  - say: hi\nexpect:\n  outcome: replied\n',
      ),
      ['run', 'cache-over-input.yaml']
    ),
    names:
      /^loopgate: cache-over-input\.yaml:6:7: provider\.script\[0\]: anthropic cannot say this step: usage\.cacheRead \+ usage\.cacheWrite \(950\) exceed usage\.input \(100\): input is the whole prompt, cache reads and writes included$/,
  },
  // A pattern in both lists is the same mistake as a name in both: it passed "OK" (outside probe 13, C3).
  {
    name: 'check-host: one pattern both denied and asked',
    setup: (w) => (
      writeFileSync(
        join(w, 'both-pattern.yaml'),
        "model:\n  provider: anthropic\n  name: claude-sonnet-4-6\ntools:\n  deny: ['issue_*']\n  ask: ['issue_*']\n",
      ),
      ['check-host', 'both-pattern.yaml', '--agent', 'support', '--config', BUNDLED]
    ),
    names:
      /^loopgate: both-pattern\.yaml:6:9: tools\.ask\[0\]: issue_\* is also denied by tools\.deny\[0\] \(both-pattern\.yaml:5:10\): a denied tool is never asked for; keep it in one list$/,
  },
  {
    name: 'check-host: a tool asked that the allow list hides (passed "OK" before: outside probe 6)',
    setup: (w) => (
      writeFileSync(
        join(w, 'allow-ask.yaml'),
        'model:\n  provider: anthropic\n  name: claude-sonnet-4-6\ntools:\n  allow: [lookup_order]\n  ask: [issue_refund]\n',
      ),
      ['check-host', 'allow-ask.yaml', '--agent', 'support', '--config', BUNDLED]
    ),
    names:
      /^loopgate: allow-ask\.yaml:6:9: tools\.ask\[0\]: issue_refund is not in tools\.allow \(allow-ask\.yaml:5:10\): a tool the allow list hides is never asked for; allow it or drop the ask$/,
  },

  // A fuzz.args arbitrary that throws was "internal error" and a stack blaming loopgate (outside probe 14, CLI-1).
  {
    name: 'fuzz: a fuzz.args arbitrary that throws',
    setup: (w) => {
      writeFileSync(
        join(w, 'gen-throws.config.ts'),
        `import fc from '${join(ROOT, 'node_modules/fast-check/lib/fast-check.js')}';\nimport bundled from '${BUNDLED}';\nexport default { ...bundled, fuzz: { args: { lookup_order: fc.constant(0).map(() => { throw new Error('gen broke'); }) } } };\n`,
      );
      return ['fuzz', '--runs', '5', '--seed', '1', '--config', 'gen-throws.config.ts'];
    },
    names: /^loopgate: \/.*\/gen-throws\.config\.ts: fuzz\.args\.lookup_order: the arbitrary threw while drawing a value: Error: gen broke$/,
  },

  // One that throws only after the draws made before the search (CLI-1's rest): it threw mid-search.
  {
    name: 'fuzz: a fuzz.args arbitrary that throws only after the first draws',
    setup: (w) => {
      writeFileSync(
        join(w, 'gen-throws-late.config.ts'),
        `import fc from '${join(ROOT, 'node_modules/fast-check/lib/fast-check.js')}';\nimport bundled from '${BUNDLED}';\nlet draws = 0;\nexport default { ...bundled, fuzz: { args: { lookup_order: fc.constant(0).map(() => { if (++draws > 20) throw new Error('gen broke late'); return { order_id: 'ORD-1001' }; }) } } };\n`,
      );
      return ['fuzz', '--runs', '200', '--seed', '1', '--config', 'gen-throws-late.config.ts'];
    },
    names: /^loopgate: \/.*\/gen-throws-late\.config\.ts: fuzz\.args\.lookup_order: the arbitrary threw while drawing a value: Error: gen broke late$/,
    afterStart: true,
  },

  // A common word declared as a secret garbled the reports: every "passed" redacted (results.json refused as "a
  // loopgate bug"), every case id ("scenario:…", a stack), the JUnit tags ("test", every case failed) (probe 64, F10).
  {
    name: "a scenario's secret that is a word of the reports (a case status)",
    setup: (w) => (writeFileSync(join(w, 'status.yaml'), `secrets: [passed]\n${SCENARIO}`), ['run', 'status.yaml']),
    names:
      /^loopgate: status\.yaml:1:\d+: secrets\[0\]: 6 characters, occurs in a word the gate writes into its reports \(a field name, status, JUnit tag, case id or check name\): redacting it would garble every report; a secret must be the credential itself$/,
  },
  {
    name: 'a secret a reopened host gains that is a word of the reports',
    setup: (w) => {
      const text =
        'name: reopen\nhost: production\nsecretsOnReopen: [passed]\nprovider:\n  script:\n    - reply: hi\n    - reply: again\ninbox:\n  - say: hi\n  - crash: true\n  - reopen: true\n  - say: again\nexpect: {}\n';
      writeFileSync(join(w, 'reopen.yaml'), text);
      return ['run', 'reopen.yaml'];
    },
    names: /^loopgate: reopen\.yaml:3:\d+: secretsOnReopen\[0\]: 6 characters, occurs in a word the gate writes into its reports /,
  },
  {
    name: "a scenario's secret inside every case id (scenario:…)",
    setup: (w) => (writeFileSync(join(w, 'kind.yaml'), `secrets: [scenario]\n${SCENARIO}`), ['run', 'kind.yaml']),
    names: /^loopgate: kind\.yaml:1:\d+: secrets\[0\]: 8 characters, occurs in a word the gate writes into its reports /,
  },
  {
    name: "an agent's secret inside a JUnit tag (testcase)",
    setup: (w) => {
      writeFileSync(join(w, 'junit.config.mjs'), "export default { agents: { a: () => ({ secrets: ['test'] }) } };\n");
      return ['run', 's.yaml', '--config', 'junit.config.mjs'];
    },
    names:
      /^loopgate: \/.*\/junit\.config\.mjs:1: agents\.a: secrets\[0\] \(4 characters\) occurs in a word the gate writes into its reports \(a field name, status, JUnit tag, case id or check name\): redacting it would garble every report; a secret must be the credential itself$/,
  },
  {
    name: "fuzz: an agent's secret that is the name of a check (executions)",
    setup: (w) => {
      writeFileSync(join(w, 'check.config.mjs'), "export default { agents: { a: () => ({ secrets: ['executions'] }) } };\n");
      return ['fuzz', '--runs', '5', '--seed', '1', '--config', 'check.config.mjs'];
    },
    names: /^loopgate: \/.*\/check\.config\.mjs:1: agents\.a: secrets\[0\] \(10 characters\) occurs in a word the gate writes into its reports /,
  },

  // 3,000 secrets ran the run out of memory, with a native stack (probe 64, F20).
  {
    name: "an agent's 3,000 secrets",
    setup: (w) => {
      const secrets = Array.from({ length: 3000 }, (_, i) => `sk_live_${String(i).padStart(5, '0')}Qz8Lp2Xv`);
      writeFileSync(join(w, 'many.config.mjs'), `export default { agents: { a: () => ({ secrets: ${JSON.stringify(secrets)} }) } };\n`);
      return ['run', 's.yaml', '--config', 'many.config.mjs'];
    },
    names:
      /^loopgate: \/.*\/many\.config\.mjs:1: agents\.a: secrets lists 3000 secrets; at most 256: each is looked for, in every form, in every text the loop writes — list the credentials this agent can reach$/,
  },
  {
    name: "a scenario's secrets and its agent's past 256 together",
    setup: (w) => {
      const agent = Array.from({ length: 200 }, (_, i) => `sk_live_${String(i).padStart(5, '0')}Qz8Lp2Xv`);
      const own = Array.from({ length: 100 }, (_, i) => `pk_test_${String(i).padStart(5, '0')}Wm4Nc7Rb`);
      writeFileSync(join(w, 'some.config.mjs'), `export default { agents: { a: () => ({ secrets: ${JSON.stringify(agent)} }) } };\n`);
      writeFileSync(join(w, 'more.yaml'), `secrets: ${JSON.stringify(own)}\n${SCENARIO}`);
      return ['run', 'more.yaml', '--config', 'some.config.mjs'];
    },
    names:
      /^loopgate: more\.yaml:1:\d+: secrets: 100 here and 200 of agent a make 300; at most 256: each is looked for, in every form, in every text the loop writes$/,
  },

  // Counts past a stated bound (1e99 was taken as an integer).
  { name: 'run --repeat 1e99', setup: () => ['run', 's.yaml', '--repeat', '1e99'], names: /^loopgate: --repeat 1e99: expected an integer from 1 to 1000$/ },
  {
    name: 'run --concurrency 1e99',
    setup: () => ['run', 's.yaml', '--concurrency', '1e99'],
    names: /^loopgate: --concurrency 1e99: expected an integer from 1 to 256$/,
  },
  { name: 'fuzz --runs 1e99', setup: () => ['fuzz', '--runs', '1e99'], names: /^loopgate: --runs 1e99: expected an integer from 1 to 10000000$/ },
  // An integer written some other way ran as if typed plainly (1e3 as seed 1000) while 0x10 was refused: written as digits only.
  {
    name: 'run --seed 1e3',
    setup: () => ['run', 's.yaml', '--seed', '1e3'],
    names: /^loopgate: --seed 1e3: expected an integer from 0 to 4294967295, written in digits$/,
  },
  {
    name: 'run --seed 1.0',
    setup: () => ['run', 's.yaml', '--seed', '1.0'],
    names: /^loopgate: --seed 1\.0: expected an integer from 0 to 4294967295, written in digits$/,
  },
  {
    name: 'run --seed " 7"',
    setup: () => ['run', 's.yaml', '--seed', ' 7'],
    names: /^loopgate: --seed " 7": expected an integer from 0 to 4294967295, written in digits$/,
  },
  {
    name: 'fuzz --runs 1e1',
    setup: () => ['fuzz', '--runs', '1e1'],
    names: /^loopgate: --runs 1e1: expected an integer from 1 to 10000000, written in digits$/,
  },
  // A flag without its value (the default was used silently), or with an empty one.
  { name: 'run --seed without a value', setup: () => ['run', 's.yaml', '--seed'], names: /^loopgate: --seed: needs a value$/ },
  { name: 'run --seed= (empty)', setup: () => ['run', 's.yaml', '--seed='], names: /^loopgate: --seed "": needs a value, not an empty string$/ },
  { name: 'tables --seed without a value', setup: () => ['tables', '--seed'], names: /^loopgate: --seed: needs a value$/ },
  { name: 'replay --at without a value', setup: () => ['replay', 'store.db', '--at'], names: /^loopgate: --at: needs a value$/ },
  { name: 'fuzz --invariant without a value', setup: () => ['fuzz', '--invariant'], names: /^loopgate: --invariant: needs a value$/ },
  { name: 'contract --model without a value', setup: () => ['contract', '--model'], names: /^loopgate: --model: needs a value$/ },
  { name: 'contract --provider without a value', setup: () => ['contract', '--provider'], names: /^loopgate: --provider: needs a value$/ },
  { name: 'run --reporter= (ran everything, wrote nothing)', setup: () => ['run', 's.yaml', '--reporter='], names: /^loopgate: --reporter: needs a value$/ },
  // A status whose response has no body, or no response at all, threw undici's RangeError with a stack (probe 64, F2).
  ...(['101', '204', '304'] as const).map((status) => ({
    name: `decode --status ${status}`,
    setup: () => [
      'decode',
      '--provider',
      'anthropic',
      '--status',
      status,
      join(ROOT, 'providers/fixtures/wire/anthropic/anthropic-issue-10372-tool-call.json'),
    ],
    names: new RegExp(`^loopgate: --status ${status}: expected an integer from 200 to 599 but 204, 205 and 304 \\(a status whose response has a body\\)$`),
  })),
  // Commas alone named no reporter: the run wrote nothing and passed (probe 64, F14).
  {
    name: 'run --reporter , (ran everything, wrote nothing)',
    setup: () => ['run', 's.yaml', '--reporter', ','],
    names: /^loopgate: --reporter ",": names no reporter; known reporters: console, json, junit, markdown, html$/,
  },
  {
    name: 'fuzz --reporter " , " (the same)',
    setup: () => ['fuzz', '--runs', '5', '--reporter', ' , '],
    names: /^loopgate: --reporter " , ": names no reporter; known reporters: console, json, junit, markdown, html$/,
  },
  {
    name: "run --reporter '' (ran everything, wrote nothing)",
    setup: () => ['run', 's.yaml', '--reporter', ''],
    names: /^loopgate: --reporter "": needs a value, not an empty string$/,
  },
  {
    name: "an empty path (run '' took the working directory)",
    setup: () => ['run', ''],
    names: /^loopgate: "": an empty paths argument; give a path \(see loopgate --help\)$/,
  },
  {
    name: 'a switch given a value',
    setup: () => ['tables', '--markdown=maybe'],
    names: /^loopgate: --markdown=maybe: a switch takes no value \(or =true, =false\)$/,
  },
  // What was typed, quoted (these said NaN).
  {
    name: 'tables with a seed that is no number',
    setup: () => ['tables', '--seed', 'x'],
    names: /^loopgate: --seed "x": expected an integer from 0 to 4294967295$/,
  },
  { name: 'run --seed abc', setup: () => ['run', 's.yaml', '--seed', 'abc'], names: /^loopgate: --seed "abc": expected an integer from 0 to 4294967295$/ },
  {
    name: 'replay --at abc',
    setup: () => ['replay', 'store.db', '--at', 'abc'],
    names: /^loopgate: --at "abc": expected an integer from 0 to 9007199254740991$/,
  },
  {
    name: 'decode --status abc',
    setup: () => ['decode', '--provider', 'anthropic', 's.yaml', '--status', 'abc'],
    names: /^loopgate: --status "abc": expected an integer from 200 to 599 but 204, 205 and 304 \(a status whose response has a body\)$/,
  },
  {
    name: 'decode --timeout below a millisecond (ran as "no complete response within 0 ms": outside probe 6)',
    setup: () => ['decode', '--provider', 'anthropic', 's.yaml', '--timeout', '0.0000001'],
    names: /^loopgate: --timeout 0\.0000001: expected a number of seconds, at least 0\.001 \(a millisecond\)$/,
  },
  {
    name: 'replay --at past the safe integers (said "expected an integer ≥ 0": outside probe 6)',
    setup: () => ['replay', 's.yaml', '--at', '99999999999999999999'],
    names: /^loopgate: --at 99999999999999999999: expected an integer from 0 to 9007199254740991$/,
  },
  {
    name: 'decode --timeout abc',
    setup: () => ['decode', '--provider', 'anthropic', 's.yaml', '--timeout', 'abc'],
    names: /^loopgate: --timeout "abc": expected a number of seconds, at least 0\.001 \(a millisecond\)$/,
  },
  {
    name: 'merge-reports --steps-threshold abc',
    setup: () => ['merge-reports', 'reports/results.json', '--steps-threshold', 'abc'],
    names: /^loopgate: --steps-threshold "abc": expected a number ≥ 0$/,
  },
  { name: 'an unknown flag and no command', setup: () => ['--bogus'], names: /^loopgate: Unknown argument: bogus; name a command \(see loopgate --help\)$/ },
  // yargs names a kebab-case flag twice, as typed and in camelCase.
  {
    name: 'an unknown kebab-case flag',
    setup: () => ['run', 's.yaml', '--bogus-flag'],
    names: /^loopgate: Unknown argument: bogus-flag \(see loopgate --help\)$/,
  },
  // Probe 58 LOW-4: the unknown flag took the file as its value, and yargs said only that no file was named.
  {
    name: 'an unknown flag that took the positional as its value',
    setup: () => ['decode', '--provider', 'anthropic', '--bogus', 's.yaml'],
    names: /^loopgate: Unknown argument: bogus \(it took "s\.yaml" as its value\) \(see loopgate --help\)$/,
  },
  { name: 'a mistyped command', setup: () => ['runn'], names: /^loopgate: Unknown command: runn; did you mean run\? \(see loopgate --help\)$/ },
  // Outside probe 61, LOW-3: a word far from any command was told as an "argument".
  {
    name: 'a command that is none',
    setup: () => ['frobnicate'],
    names:
      /^loopgate: Unknown command: frobnicate \(the commands: run, tables, contract, decode, replay, merge-reports, fuzz, check-host\) \(see loopgate --help\)$/,
  },
  {
    name: 'a command that is none, with more words',
    setup: () => ['frobnicate', 'x'],
    names:
      /^loopgate: Unknown command: frobnicate \(the commands: run, tables, contract, decode, replay, merge-reports, fuzz, check-host\) \(see loopgate --help\)$/,
  },
  // yargs answers --help before it checks anything: the mistyped flag was ignored and the exit 0 (stop 31's known minor).
  { name: '--help with an unknown flag', setup: () => ['--help', '--bogus'], names: /^loopgate: Unknown argument: bogus \(see loopgate --help\)$/ },
  { name: 'run --help with an unknown flag', setup: () => ['run', '--help', '--bogus'], names: /^loopgate: Unknown argument: bogus \(see loopgate --help\)$/ },
  { name: 'fuzz --help with a bad value', setup: () => ['fuzz', '--help', '--runs', 'many'], names: /^loopgate: --runs "many": / },
];

describe('every bad input: exit 2, one line naming it, nothing written, no hang', () => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const work = mkdtempSync(join(tmpdir(), 'loopgate-bad-case-'));
    try {
      cpSync(base, work, { recursive: true });
      const args = c.setup(work);
      const before = snapshot(work);
      const result = await loopgate(args, work);
      expect(result.hung, `loopgate ${args.join(' ')} hung`).toBe(false);
      expect(result.status, result.stderr).toBe(EXIT.usage);
      const lines = result.stderr.split('\n').filter((line) => line !== '');
      expect(lines, result.stderr).toHaveLength(1);
      expect(lines[0]).toMatch(c.names);
      expect(result.stderr).not.toMatch(/internal error|\n\s+at /);
      expect(result.stdout).toBe('');
      const { 'reports/results.json': _earlier, ...untouched } = before;
      expect(snapshot(work)).toEqual(c.afterStart ? untouched : before);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });

  // Root may write anywhere; the /proc and /sys rows cover the refusal there.
  it.skipIf(process.getuid?.() === 0)('--out in a directory without write permission (skipped as root, who may write anywhere)', async () => {
    const work = mkdtempSync(join(tmpdir(), 'loopgate-bad-case-'));
    try {
      writeFileSync(join(work, 's.yaml'), SCENARIO);
      mkdirSync(join(work, 'locked'));
      chmodSync(join(work, 'locked'), 0o555);
      const before = snapshot(work);
      const result = await loopgate(['run', 's.yaml', '--out', 'locked/reports'], work);
      expect(result.status).toBe(EXIT.usage);
      expect(result.stderr).toMatch(/^loopgate: locked\/reports: cannot create the report directory in .*locked: permission denied/);
      expect(snapshot(work)).toEqual(before);
    } finally {
      chmodSync(join(work, 'locked'), 0o755);
      rmSync(work, { recursive: true, force: true });
    }
  });
});
