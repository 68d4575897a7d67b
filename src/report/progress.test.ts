import { describe, expect, it } from 'vitest';
import { sampleCases } from '../../test/report/sample-results.ts';
import { createProgress } from './progress.ts';

const byId = (id: string) => sampleCases().find((c) => c.id === id)!;

describe('progress', () => {
  it('in CI writes one plain line per finished case', () => {
    const out: string[] = [];
    const progress = createProgress({ tty: false, write: (t) => out.push(t), total: 3 });
    progress.start('table:tool_use@MODEL_CALL');
    progress.finish(byId('table:tool_use@MODEL_CALL'));
    progress.start('table:cancel@TOOL_RUNNING');
    progress.finish(byId('table:cancel@TOOL_RUNNING'));
    progress.finish(byId('scenario:live/refund-approval'));
    progress.done();
    expect(out.join('')).toBe(
      [
        '✓ table:tool_use@MODEL_CALL (3 ms)',
        '✗ table:cancel@TOOL_RUNNING — invariant 6: tool pairing: tool call call_1 has no result in the next request',
        '○ scenario:live/refund-approval skipped — live scenario: ANTHROPIC_API_KEY is not set',
        '',
      ].join('\n'),
    );
    expect(out.join('')).not.toContain('\r');
  });

  it('on a terminal rewrites one line with counts and the running case, keeping failures above it', () => {
    const out: string[] = [];
    const progress = createProgress({ tty: true, write: (t) => out.push(t), total: 8, columns: 200 });
    progress.start('scenario:refunds/approval-granted');
    progress.start('table:cancel@TOOL_RUNNING');
    expect(out.at(-1)).toBe('\r\u001b[2K[0/8] ✓ 0  ✗ 0  ○ 0  table:cancel@TOOL_RUNNING (+1)');
    progress.finish(byId('table:cancel@TOOL_RUNNING'));
    expect(out.at(-2)).toMatch(/^\r\u001b\[2K✗ table:cancel@TOOL_RUNNING — invariant 6.*\n$/);
    expect(out.at(-1)).toBe('\r\u001b[2K[1/8] ✓ 0  ✗ 1  ○ 0  scenario:refunds/approval-granted');
    progress.finish(byId('scenario:refunds/approval-granted'));
    expect(out.at(-1)).toBe('\r\u001b[2K[2/8] ✓ 1  ✗ 1  ○ 0');
    progress.done();
    progress.done();
    expect(out.at(-1)!.endsWith('\n')).toBe(true);
    expect(out.filter((t) => t.endsWith('\n'))).toHaveLength(2); // the failure and the final line
  });

  it('takes a case off the live line by the id it started under, though its result names it redacted', () => {
    // A case whose id holds a piece of a secret is reported as `…[REDACTED]…`: matched by that, it stayed "running".
    const out: string[] = [];
    const progress = createProgress({ tty: true, write: (t) => out.push(t), total: 1, columns: 200 });
    progress.start('scenario:rotated-sk-live-abcd1234');
    progress.finish({ ...byId('scenario:refunds/approval-granted'), id: 'scenario:rotated-[REDACTED]' }, 'scenario:rotated-sk-live-abcd1234');
    expect(out.at(-1)).toBe('\r\u001b[2K[1/1] ✓ 1  ✗ 0  ○ 0');
  });

  it('never lets the live line wrap', () => {
    const out: string[] = [];
    const progress = createProgress({ tty: true, write: (t) => out.push(t), columns: 30 });
    progress.start('scenario:a/very/long/case/identifier/that/goes/on');
    expect(out.at(-1)!.replace('\r\u001b[2K', '').length).toBeLessThan(30);
  });
});
