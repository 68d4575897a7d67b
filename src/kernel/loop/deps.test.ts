/**
 * loopDeps refuses a redactor of the caller's that would garble the loop's own
 * records: every string of every record passes it, so a redactor that changes
 * a word the loop writes (a field name, status, event type) or a tool's name
 * rewrites every record holding it (agent secrets are refused the same way,
 * agent-settings.ts; a redactor is a function, so it is asked word by word).
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { VirtualClock } from '../../harness/virtual-clock.ts';
import { ScriptedModelClient } from '../../../providers/fake/scripted.ts';
import { AgentSettingError } from '../agent-settings.ts';
import { EventLog } from '../log/event-log.ts';
import { createRedactor } from '../redact/index.ts';
import { defineTool } from '../tools/define-tool.ts';
import { loopDeps } from './deps.ts';

const agent = {
  tools: [
    defineTool({
      name: 'issue_refund',
      description: 'Refund an order.',
      input: z.object({ order: z.string() }),
      sideEffect: 'STATEFUL',
      run: () => ({ ok: true }),
    }),
  ],
};
const build = (redact: (text: string) => string) => () =>
  loopDeps({ log: new EventLog(new VirtualClock()), model: new ScriptedModelClient([]), agent, redact });

describe('loopDeps with a redactor of your own', () => {
  it('refuses one that changes a word the loop writes into its records, naming the word', () => {
    const redact = createRedactor({ patterns: [/\bstatus\b/g] });
    expect(build(redact)).toThrow(AgentSettingError);
    expect(build(redact)).toThrow(
      'redact changes "status", a word the loop writes into its records (a field name, status or event type): it would garble every record; redact credentials only',
    );
  });

  it("refuses one that changes a tool's name", () => {
    expect(build((text) => text.replaceAll('refund', '[REDACTED]'))).toThrow(
      'redact changes the name of the tool "issue_refund": it would garble every call of it; redact credentials only',
    );
  });

  it('accepts the default redactor and one with secrets and patterns of credentials', () => {
    expect(build(createRedactor())).not.toThrow();
    expect(build(createRedactor({ secrets: ['sk_live_51Hqexample'], patterns: [/\bAKIA[0-9A-Z]{16}\b/g] }))).not.toThrow();
  });
});
