import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
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

describe('removeReports', () => {
  it("removes the reports the run writes and this process's leftover temp files, keeps the rest and the baseline it reads", () => {
    const outDir = mkdtempSync(join(tmpdir(), 'loopgate-remove-'));
    for (const name of ['results.json', 'junit.xml', 'summary.md', 'report.html', `junit.xml.${process.pid}.tmp`, 'notes.txt'])
      writeFileSync(join(outDir, name), 'earlier');
    expect(removeReports(outDir, ['console', 'json', 'junit', 'html'], [join(outDir, 'results.json')])).toEqual([
      'junit.xml',
      `junit.xml.${process.pid}.tmp`,
      'report.html',
    ]);
    expect(readdirSync(outDir).sort()).toEqual(['notes.txt', 'results.json', 'summary.md']);
    expect(removeReports(join(outDir, 'missing'), ['json'])).toEqual([]);
  });

  it('refuses a report path that is a directory, before removing anything', () => {
    const outDir = mkdtempSync(join(tmpdir(), 'loopgate-remove-'));
    writeFileSync(join(outDir, 'results.json'), 'earlier');
    mkdirSync(join(outDir, 'junit.xml'));
    expect(() => removeReports(outDir, ['json', 'junit'])).toThrow(/junit\.xml: is not a file/);
    expect(readdirSync(outDir).sort()).toEqual(['junit.xml', 'results.json']);
  });
});
