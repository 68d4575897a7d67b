/** The config's assertions, judges and defaultJudge: what is accepted, and every bad value named by file, line and key. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ScriptedModelClient } from '../../providers/fake/scripted.ts';
import { resolveConfig } from './load-config.ts';

const dir = mkdtempSync(join(tmpdir(), 'loopgate-reply-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A config file whose source holds `source` (for the line), resolved from `value`. */
function resolve(source: string, value: Record<string, unknown>) {
  const file = join(dir, 'loopgate.config.ts');
  writeFileSync(file, source);
  return () => resolveConfig(value, file);
}

describe('assertions, judges and defaultJudge in loopgate.config.ts', () => {
  const grader = new ScriptedModelClient([], { name: 'grader' });

  it('accepts predicates, clients, { client, model } and { provider, model }, and the default judge', () => {
    const config = resolve('export default {}', {
      assertions: { 'has-order': () => true },
      judges: { a: grader, b: { client: grader, model: 'm' }, c: { provider: 'anthropic', model: 'claude-sonnet-4-5' } },
      defaultJudge: 'b',
    })();
    expect([...config.replies.predicates.keys()]).toEqual(['has-order']);
    expect([...config.replies.judges.keys()]).toEqual(['a', 'b', 'c']);
    expect(config.replies.defaultJudge).toBe('b');
  });

  it('names the file, the line and the key of a bad predicate, judge or default judge', () => {
    const source = [
      'export default {',
      '  assertions: {',
      "    'has-order': 'yes',",
      '  },',
      '  judges: {',
      "    strict: { provider: 'gemini', model: 'x' },",
      '  },',
      "  defaultJudge: 'strcit',",
      '};',
    ].join('\n');
    expect(resolve(source, { assertions: { 'has-order': 'yes' } })).toThrow(
      /loopgate\.config\.ts:3: assertions\.has-order: expected a predicate: \(reply, run\) => true \| "why it fails"/,
    );
    expect(resolve(source, { judges: { strict: { provider: 'gemini', model: 'x' } } })).toThrow(
      /loopgate\.config\.ts:6: judges\.strict: provider: expected one of anthropic, openai-chat, openai-responses, got "gemini"/,
    );
    expect(resolve(source, { judges: { strict: grader }, defaultJudge: 'strcit' })).toThrow(
      /loopgate\.config\.ts:8: defaultJudge: no judge "strcit" \(did you mean strict\?\); defined: strict/,
    );
    expect(resolve(source, { judges: { strict: { name: 'x' } } })).toThrow(/judges\.strict: expected a ModelClient/);
  });
});
