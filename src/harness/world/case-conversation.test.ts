/**
 * Each scenario case runs as a conversation of its own, through each host: a team's tool that keeps state
 * outside its factory — a ledger keyed by conversation, a payment sandbox that remembers idempotency keys —
 * sees no other case's calls (outside probe 35, F10: every case was conversation `case`, so two scenarios
 * charging 5 and 7 under the call id `p1` wrote four charges under one key, and each read the other's total).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, type AgentFactory } from '../../kernel/index.ts';
import { NO_REPLY_ASSERTIONS } from '../checks/reply-assertions.ts';
import { runCases } from '../runner.ts';
import { scenarioCasesFrom, type SuiteContext } from '../suites.ts';
import { bystanderOf, caseConversation, isBystander } from './case-conversation.ts';

const dir = mkdtempSync(join(tmpdir(), 'loopgate-conversations-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the conversation a case runs as', () => {
  it('is its own per case and host, the same on every run, and an id the production host takes', () => {
    const ids = [
      caseConversation('refunds/approved', 'loop'),
      caseConversation('refunds/approved', 'production'),
      caseConversation('refunds.approved', 'loop'),
      caseConversation('refunds/approved-2', 'loop'),
      caseConversation('mine/a b', 'loop'),
      caseConversation('mine/a_b', 'loop'),
      caseConversation(`long/${'x'.repeat(400)}`, 'loop'),
      caseConversation(`long/${'x'.repeat(401)}`, 'loop'),
    ];
    expect(ids.slice(0, 2)).toEqual(['case:refunds.approved:loop', 'case:refunds.approved:host']);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) {
      expect(id).toMatch(/^[A-Za-z0-9._:-]{1,200}$/);
      // A bystander (a second conversation on the case's host) has its own, beside the case's.
      expect(bystanderOf(id)).toMatch(/^[A-Za-z0-9._:-]{1,200}$/);
      expect(isBystander(bystanderOf(id)) && !isBystander(id)).toBe(true);
    }
    expect(bystanderOf('case')).toBe('bystander');
    expect(caseConversation('refunds/approved', 'loop')).toBe(ids[0]);
  });

  it("keeps a tool's outside state apart: two cases with the same call id see only their own charges", async () => {
    // What a team's sandbox keeps across conversations, keyed as README tells them to key it.
    const ledger = new Map<string, number[]>();
    const keys: string[] = [];
    const charge = defineTool({
      name: 'charge',
      description: 'Charge the customer and say the total charged in this conversation.',
      input: z.object({ amount: z.number() }),
      sideEffect: 'STATEFUL',
      run: ({ amount }, ctx) => {
        keys.push(ctx.idempotencyKey);
        const conversation = ctx.idempotencyKey.slice(0, ctx.idempotencyKey.lastIndexOf('/'));
        const charges = [...(ledger.get(conversation) ?? []), amount];
        ledger.set(conversation, charges);
        return { total: charges.reduce((a, b) => a + b, 0) };
      },
    });
    const seen: (string | undefined)[] = [];
    const pay: AgentFactory = (ctx) => {
      seen.push(ctx.conversationId);
      return { tools: [charge] };
    };
    const context: SuiteContext = {
      registry: { agents: new Map([['pay', pay]]), defaultAgent: 'pay' },
      invariants: [],
      root: dir,
      replies: NO_REPLY_ASSERTIONS,
      hosts: ['loop', 'production'],
    };
    const scenario = (amount: number) =>
      [
        `name: charge ${amount}`,
        'provider:',
        '  script:',
        `    - tool_use: [{ id: p1, name: charge, args: { amount: ${amount} } }]`,
        '    - reply: done',
        'inbox: [{ say: charge me }]',
        'expect:',
        '  outcome: replied',
        '  history:',
        '    contains:',
        `      - 'user: result#p1 ok: {"total":${amount}}'`,
        '',
      ].join('\n');
    const files = [5, 7].map((amount) => {
      const file = join(dir, `charge-${amount}.yaml`);
      writeFileSync(file, scenario(amount));
      return file;
    });
    const cases = await scenarioCasesFrom(files, context);
    const results = await runCases(cases, { seed: 1, concurrency: 4 });
    expect(results.map((r) => [r.id, r.status, r.failure ?? ''])).toEqual([
      ['scenario:charge-5', 'passed', ''],
      ['scenario:charge-5@host', 'passed', ''],
      ['scenario:charge-7', 'passed', ''],
      ['scenario:charge-7@host', 'passed', ''],
    ]);
    expect(new Set(keys).size).toBe(4);
    // (The suite builds each agent once at load too, for no conversation, to check it.)
    expect([...new Set(seen.filter((id) => id !== undefined))].sort()).toEqual([
      'case:charge-5:host',
      'case:charge-5:loop',
      'case:charge-7:host',
      'case:charge-7:loop',
    ]);
  });

  it('names no secret: a scenario whose file name holds half of one of its secrets runs through the production host', async () => {
    const secret = 'sk-live-abcd1234efgh5678';
    const seen: (string | undefined)[] = [];
    const lookup = defineTool({
      name: 'lookup',
      description: 'Look the order up.',
      input: z.object({ id: z.string() }),
      sideEffect: 'NONE',
      run: ({ id }, ctx) => ({ id, key: ctx.idempotencyKey }),
    });
    const agent: AgentFactory = (ctx) => {
      seen.push(ctx.conversationId);
      return { tools: [lookup] };
    };
    const context: SuiteContext = {
      registry: { agents: new Map([['a', agent]]), defaultAgent: 'a' },
      invariants: [],
      root: dir,
      replies: NO_REPLY_ASSERTIONS,
      hosts: ['loop', 'production'],
    };
    // Half the secret (12 of its 24 characters) is in the file's name, so in the scenario's id.
    const file = join(dir, 'rotated-sk-live-abcd1234.yaml');
    writeFileSync(
      file,
      [
        'name: a rotated key',
        `secrets: [${secret}]`,
        'provider:',
        '  script:',
        '    - tool_use: [{ id: l1, name: lookup, args: { id: ORD-1 } }]',
        '    - reply: done',
        'inbox: [{ say: look it up }]',
        'expect:',
        '  outcome: replied',
        '',
      ].join('\n'),
    );
    const results = await runCases(await scenarioCasesFrom([file], context), { seed: 1, concurrency: 2 });
    expect(results.map((r) => [r.id, r.status, r.failure ?? ''])).toEqual([
      // (Results name the case with the secret's piece redacted, as every report does.)
      ['scenario:rotated-[REDACTED]', 'passed', ''],
      ['scenario:rotated-[REDACTED]@host', 'passed', ''],
    ]);
    const ids = [...new Set(seen.filter((id) => id !== undefined))];
    expect(ids).toHaveLength(2);
    for (const id of ids) expect(id).not.toContain('sk-live-abcd');
    // Still its own, and the same on every run.
    expect(ids.every((id) => /^case:[0-9a-f]{8}:(loop|host)$/.test(id as string))).toBe(true);
  });
});
