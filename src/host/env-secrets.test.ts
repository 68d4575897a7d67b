/**
 * The host redacts values of environment variables named like credentials
 * (*_TOKEN, *_SECRET, …). One that is a word the loop writes into its own records
 * (EXAMPLE_TOKEN=maxTokens) is no credential — and redacting it garbled every
 * record ("[REDACTED]": 4096 in place of maxTokens), so a gate's verdict on the
 * production host depended on the machine's environment (gate-9).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { reply } from '../../providers/fake/results.ts';
import { ScriptedModelClient } from '../../providers/fake/scripted.ts';
import { MemoryEventStore } from '../stores/memory-store.ts';
import { defaultHostConfig } from './config.ts';
import { AgentHost } from './host.ts';

const NAMES = ['EXAMPLE_TOKEN', 'EXAMPLE_API_KEY'] as const;
afterEach(() => {
  for (const name of NAMES) delete process.env[name];
});

describe('secrets from the environment', () => {
  it('a value that is a word of the log is not redacted (records stay whole); a real one still is', async () => {
    process.env.EXAMPLE_TOKEN = 'maxTokens';
    process.env.EXAMPLE_API_KEY = 'sk-env-0123456789abcdefghij';
    const store = new MemoryEventStore();
    const model = new ScriptedModelClient([reply('Your key sk-env-0123456789abcdefghij is set.')]);
    const host = new AgentHost({ config: defaultHostConfig(), store, model });
    const answer = await host.handle('c1', 'hello');
    expect(answer.status).toBe(200);
    expect(answer.reply).not.toContain('sk-env-0123456789abcdefghij');
    const records = await store.read('c1');
    await host.close();
    const request = records.find((r) => r.type === 'model.request');
    expect(request?.payload).toHaveProperty('maxTokens');
    expect(JSON.stringify(records)).not.toContain('"[REDACTED]":');
  });
});
