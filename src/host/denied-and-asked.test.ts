/** A tool asked by name and denied (by name or pattern) is a config error naming both places; apart, the lists pass. */
import { describe, expect, it } from 'vitest';
import { parseHostConfig } from './config.ts';
import { checkDeniedAndAsked } from './denied-and-asked.ts';

const TOOLS = ['issue_refund', 'issue_voucher', 'notify_customer'];
const check = (tools: string) => () => checkDeniedAndAsked(parseHostConfig(`tools:\n${tools}`, 'agent.yaml'), TOOLS);

describe('checkDeniedAndAsked', () => {
  it('refuses a tool asked by name and denied, by name or through a pattern, naming both lines', () => {
    expect(check('  deny: [issue_refund]\n  ask: [issue_refund]\n')).toThrow(
      'invalid config:\nagent.yaml:3:9: tools.ask[0]: issue_refund is also denied by tools.deny[0] (agent.yaml:2:10): a denied tool is never asked for; keep it in one list',
    );
    expect(check('  deny:\n    - notify_customer\n    - issue_*\n  ask: [issue_voucher]\n')).toThrow(
      /agent\.yaml:5:9: tools\.ask\[0\]: issue_voucher is also denied by tools\.deny\[1\] \(agent\.yaml:4:7\)/,
    );
  });

  it('refuses a tool asked by name that the allow list leaves out (hidden just the same), naming both lines', () => {
    expect(check('  allow: [notify_customer]\n  ask: [issue_refund]\n')).toThrow(
      'invalid config:\nagent.yaml:3:9: tools.ask[0]: issue_refund is not in tools.allow (agent.yaml:2:10): a tool the allow list hides is never asked for; allow it or drop the ask',
    );
    expect(check('  allow: [notify_customer, "issue_*"]\n  ask: [issue_refund]\n')).not.toThrow();
  });

  it('passes lists that do not overlap, and an ask pattern reaching past a deny (it stays for tools to come)', () => {
    expect(check('  deny: [issue_refund]\n  ask: ["*_refund"]\n')).not.toThrow();
    expect(check('  deny: [issue_refund]\n  ask: [notify_customer, "issue_v*"]\n')).not.toThrow();
    expect(check('  ask: [issue_refund]\n')).not.toThrow();
  });
});
