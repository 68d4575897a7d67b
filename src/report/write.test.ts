import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sampleResults } from '../../test/report/sample-results.ts';
import { parseResultsJson } from './json.ts';
import { parseReporters, removeReports, UnknownReporterError, writeReports } from './write.ts';

const fresh = () => join(mkdtempSync(join(tmpdir(), 'loopgate-write-')), 'reports', 'nested');

describe('writeReports', () => {
  it('writes every file format under outDir, creating it, and returns the console text', async () => {
    const outDir = fresh();
    const written = await writeReports(sampleResults(), { reporters: ['console', 'json', 'junit', 'markdown', 'html'], outDir });
    expect(written.files).toEqual({
      json: join(outDir, 'results.json'),
      junit: join(outDir, 'junit.xml'),
      markdown: join(outDir, 'summary.md'),
      html: join(outDir, 'report.html'),
    });
    expect(readdirSync(outDir).sort()).toEqual(['junit.xml', 'report.html', 'results.json', 'summary.md']);
    expect(parseResultsJson(readFileSync(written.files.json!, 'utf8'), 'results.json').cases).toHaveLength(8);
    expect(readFileSync(written.files.junit!, 'utf8')).toMatch(/^<\?xml/);
    expect(readFileSync(written.files.markdown!, 'utf8')).toContain('Per-case timelines: report.html');
    expect(readFileSync(written.files.html!, 'utf8')).toMatch(/^<!doctype html>/);
    expect(written.console).toContain('FAILED: 2 failed');
  });

  it('writes only what was asked for', async () => {
    const outDir = fresh();
    const written = await writeReports(sampleResults(), { reporters: ['junit'], outDir });
    expect(written.console).toBeUndefined();
    expect(readdirSync(outDir)).toEqual(['junit.xml']);
    const consoleOnly = fresh();
    expect((await writeReports(sampleResults(), { reporters: ['console'], outDir: consoleOnly })).files).toEqual({});
    expect(existsSync(consoleOnly)).toBe(false);
  });

  it('refuses an unknown reporter before writing anything, listing the known ones', async () => {
    const outDir = fresh();
    await expect(writeReports(sampleResults(), { reporters: ['json', 'xml'], outDir })).rejects.toThrow(
      'unknown reporter "xml"; known reporters: console, json, junit, markdown, html',
    );
    expect(existsSync(outDir)).toBe(false);
  });

  it('names the path when it cannot write', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'loopgate-write-'));
    const blocker = join(dir, 'file');
    writeFileSync(blocker, 'x');
    await expect(writeReports(sampleResults(), { reporters: ['json'], outDir: join(blocker, 'reports') })).rejects.toThrow(
      `${join(blocker, 'reports')}: cannot be the report directory: ${blocker} is a regular file, not a directory`,
    );
  });
});

describe('parseReporters', () => {
  it('accepts repeated and comma-separated names, once each', () => {
    expect(parseReporters(['junit,html', 'console', 'html'])).toEqual(['junit', 'html', 'console']);
    expect(parseReporters('json')).toEqual(['json']);
    expect(() => parseReporters(['junit,HTML'])).toThrow(UnknownReporterError);
  });
});

/** The reports an earlier run wrote into a fresh directory (every file format). */
async function earlierRun(): Promise<string> {
  const outDir = mkdtempSync(join(tmpdir(), 'loopgate-remove-'));
  await writeReports(sampleResults(), { reporters: ['json', 'junit', 'markdown', 'html'], outDir });
  return outDir;
}

describe('removeReports', () => {
  it("removes the reports the run writes and this process's leftover temp files, keeps the rest and the baseline it reads", async () => {
    const outDir = await earlierRun();
    for (const name of [`junit.xml.${process.pid}.tmp`, 'notes.txt']) writeFileSync(join(outDir, name), 'earlier');
    expect(removeReports(outDir, ['console', 'json', 'junit', 'html'], [join(outDir, 'results.json')])).toEqual([
      'junit.xml',
      `junit.xml.${process.pid}.tmp`,
      'report.html',
    ]);
    expect(readdirSync(outDir).sort()).toEqual(['notes.txt', 'results.json', 'summary.md']);
    expect(removeReports(join(outDir, 'missing'), ['json'])).toEqual([]);
  });

  it('refuses a report path that is a directory, before removing anything', async () => {
    const outDir = await earlierRun();
    rmSync(join(outDir, 'junit.xml'));
    mkdirSync(join(outDir, 'junit.xml'));
    expect(() => removeReports(outDir, ['json', 'junit'])).toThrow(/junit\.xml: is not a file/);
    expect(readdirSync(outDir).sort()).toEqual(['junit.xml', 'report.html', 'results.json', 'summary.md']);
  });

  // Probe 18: `loopgate fuzz --out docs` removed the user's own docs/summary.md, junit.xml and report.html
  // before it ran ("the reports an earlier run left there were removed"): files loopgate never wrote.
  it("refuses a file of a report's name that loopgate did not write, before removing anything", async () => {
    for (const [name, reporter, text] of [
      ['summary.md', 'markdown', '# Release notes\n\nWritten by hand.\n'],
      ['junit.xml', 'junit', '<?xml version="1.0"?>\n<testsuites name="jest" tests="3"></testsuites>\n'],
      ['report.html', 'html', '<!doctype html>\n<title>Quarterly report</title>\n'],
      ['results.json', 'json', '{"schema":"acme.bench/v1","results":[]}\n'],
      ['summary.md', 'markdown', ''],
    ] as const) {
      const outDir = await earlierRun();
      writeFileSync(join(outDir, name), text);
      const before = readdirSync(outDir).sort();
      expect(() => removeReports(outDir, ['console', 'json', 'junit', 'markdown', 'html'])).toThrow(
        `${join(outDir, name)}: is not a ${reporter} report of loopgate's: the run would replace it (move it, or choose another --out)`,
      );
      expect(readdirSync(outDir).sort()).toEqual(before);
      expect(readFileSync(join(outDir, name), 'utf8')).toBe(text);
    }
  });
});

describe('writeReports over files it did not write', () => {
  it("replaces an earlier run's reports, but refuses someone's own file of a report's name and writes nothing", async () => {
    const outDir = await earlierRun();
    await writeReports(sampleResults(), { reporters: ['json', 'junit', 'markdown', 'html'], outDir });
    writeFileSync(join(outDir, 'summary.md'), '# Notes\n');
    rmSync(join(outDir, 'results.json'));
    await expect(writeReports(sampleResults(), { reporters: ['json', 'markdown'], outDir })).rejects.toThrow(
      `${join(outDir, 'summary.md')}: is not a markdown report of loopgate's`,
    );
    expect(readFileSync(join(outDir, 'summary.md'), 'utf8')).toBe('# Notes\n');
    expect(existsSync(join(outDir, 'results.json'))).toBe(false);
  });
});
