/**
 * A host built from its YAML file alone, on the real SDKs over HTTP (msw wire
 * fakes intercepting the SDKs' requests): it answers through the configured
 * provider, base URL and key variable; falls back to its configured fallback, asked
 * for the fallback's own model, once the primary's retries are spent; stores where
 * `store` says; exports traces where `trace.export` says; and refuses a bad config
 * (a missing key, a misspelled tool) as a ConfigError before opening anything.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { anthropicWire } from '../../providers/wire-fakes/anthropic.ts';
import { openAIChatWire } from '../../providers/wire-fakes/openai-chat.ts';
import { jsonPlan, streamPlan } from '../../providers/wire-fakes/plan.ts';
import { acquireWireFake, type WireScenario } from '../../providers/wire-fakes/server.ts';
import { SupportBackend } from '../../scenarios/example-agent/backend.ts';
import { supportTools } from '../../scenarios/example-agent/tools.ts';
import { call, reply, toolUse, transportError } from '../../providers/fake/results.ts';
import { ScriptedModelClient } from '../../providers/fake/scripted.ts';
import { InputError, type AgentContext } from '../kernel/index.ts';
import { SqliteEventStore } from '../stores/sqlite-store.ts';
import { checkedHostConfig, ConfigError, type HostConfig } from './config.ts';
import { createHostFromConfig } from './from-config.ts';

const fake = acquireWireFake();
const dir = mkdtempSync(join(tmpdir(), 'loopgate-from-config-'));
afterAll(() => {
  fake.release();
  rmSync(dir, { recursive: true, force: true });
});

const PRIMARY_KEY = 'sk-ant-api03-primary-key-0123456789abcdefghijklmnop';
const FALLBACK_KEY = 'sk-proj-fallback-key-0123456789abcdefghijklmnopqrst';
const env = { SUPPORT_ANTHROPIC_KEY: PRIMARY_KEY, SUPPORT_OPENAI_KEY: FALLBACK_KEY };

let configs = 0;
function writeConfig(yaml: string): { file: string; folder: string } {
  const folder = join(dir, `agent-${configs++}`);
  mkdirSync(folder, { recursive: true });
  const file = join(folder, 'agent.yaml');
  writeFileSync(file, yaml);
  return { file, folder };
}

function supportConfig(primary: WireScenario, fallback: WireScenario): string {
  return `
model:
  provider: anthropic
  name: claude-sonnet-4-6
  baseURL: ${primary.baseURL('anthropic')}
  apiKeyEnv: SUPPORT_ANTHROPIC_KEY
  maxTokens: 512
  fallback:
    - provider: openai-chat
      name: gpt-4.1-mini
      baseURL: ${fallback.baseURL('openai-chat')}
      apiKeyEnv: SUPPORT_OPENAI_KEY
retry:
  immediateRetries: 1
  immediateDelayMs: 0
  backoffRetries: 1
  backoffBaseMs: 1
  backoffMaxMs: 1
  jitter: 0
tools:
  deny: [issue_refund]
store:
  kind: sqlite
  path: data/agent.db
trace:
  export:
    jsonl: traces/turns.jsonl
prompt:
  identity: You are the after-sales agent of Example Shop.
`;
}

const answer = (text: string) => ({ blocks: [{ type: 'text' as const, text }], stop: 'end' as const, usage: { input: 12, output: 4 } });

describe('createHostFromConfig', () => {
  it('answers a message through the configured provider, base URL and key; stores and exports where the config says; the key is nowhere', async () => {
    const primary = fake.scenario(streamPlan(anthropicWire.streamFrames(answer('Your order ORD-1002 has shipped.'))));
    const fallback = fake.scenario(streamPlan(openAIChatWire.streamFrames(answer('never asked'))));
    const { file, folder } = writeConfig(supportConfig(primary, fallback));
    const host = await createHostFromConfig(file, { tools: supportTools(new SupportBackend()), env });

    const envelope = await host.handle('c1', 'Where is ORD-1002?');
    expect(envelope).toMatchObject({ status: 200, reply: 'Your order ORD-1002 has shipped.' });
    expect(primary.requests).toHaveLength(1);
    expect(fallback.requests).toHaveLength(0);
    const body = primary.requests[0]!.body as { model: string; max_tokens: number; system: string; tools: { name: string }[] };
    expect(body.model).toBe('claude-sonnet-4-6');
    expect(body.max_tokens).toBe(512);
    expect(body.system).toBe('You are the after-sales agent of Example Shop.');
    expect(body.tools.map((t) => t.name)).toEqual(['lookup_order', 'add_note', 'notify_customer']); // tools.deny hid issue_refund
    await host.close();

    // The store and the traces live where the config said, relative to the config file.
    expect(existsSync(join(folder, 'data', 'agent.db'))).toBe(true);
    const store = new SqliteEventStore(join(folder, 'data', 'agent.db'));
    const stored = await store.read('c1');
    await store.close();
    expect(stored.map((r) => r.type)).toContain('assistant.message');
    const traces = readFileSync(join(folder, 'traces', 'turns.jsonl'), 'utf8')
      .trim()
      .split('\n');
    expect(traces).toHaveLength(1);
    for (const text of [JSON.stringify(stored), traces.join('\n'), JSON.stringify(envelope), JSON.stringify(primary.requests)]) {
      expect(text).not.toContain(PRIMARY_KEY);
      expect(text).not.toContain(FALLBACK_KEY);
    }
  });

  it("falls back to the configured fallback when the primary stays overloaded, asking it for the fallback's own model", async () => {
    const primary = fake.scenario(jsonPlan(anthropicWire.errorAnswer('overloaded').status, anthropicWire.errorAnswer('overloaded').body));
    const fallback = fake.scenario(streamPlan(openAIChatWire.streamFrames(answer('Answered by the fallback.'))));
    const { file } = writeConfig(supportConfig(primary, fallback));
    const host = await createHostFromConfig(file, { tools: supportTools(new SupportBackend()), env });

    const envelope = await host.handle('c1', 'Where is ORD-1002?');
    expect(envelope).toMatchObject({ status: 200, reply: 'Answered by the fallback.' });
    // 1 attempt + 1 immediate retry + 1 backoff retry at the primary (529 each), then the fallback.
    expect(primary.requests).toHaveLength(3);
    expect(fallback.requests).toHaveLength(1);
    expect(fallback.requests[0]!.path).toBe('/v1/chat/completions');
    expect((fallback.requests[0]!.body as { model: string }).model).toBe('gpt-4.1-mini'); // not the primary's claude-sonnet-4-6
    const handled = (await host.events('c1')).filter((e) => e.type === 'model.error_handled').map((e) => (e.payload as { action: string }).action);
    expect(handled).toEqual(['retry', 'retry', 'switch_client']);
    await host.close();
  });

  it('a config naming a misspelled tool is a ConfigError (an InputError: exit 2) naming file, line and the closest tool, and opens no store', async () => {
    const primary = fake.scenario(streamPlan(anthropicWire.streamFrames(answer('unused'))));
    const { file, folder } = writeConfig(supportConfig(primary, primary).replace('deny: [issue_refund]', 'deny: [isue_refund]'));
    const error = await createHostFromConfig(file, { tools: supportTools(new SupportBackend()), env }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect(error).toBeInstanceOf(InputError);
    expect((error as Error).message).toContain(`${file}:21:10: tools.deny[0]`);
    expect((error as Error).message).toMatch(
      /tools\.deny\[0\]: "isue_refund" is not a registered tool \(registered: [a-z_, ]+\); did you mean "issue_refund"\?/,
    );
    expect(existsSync(join(folder, 'data'))).toBe(false);
    expect(primary.requests).toHaveLength(0);
  });

  it("the agent's own rule or layer naming no tool is refused before anything is opened", async () => {
    const primary = fake.scenario(streamPlan(anthropicWire.streamFrames(answer('unused'))));
    const { file, folder } = writeConfig(supportConfig(primary, primary));
    const agent = { tools: supportTools(new SupportBackend()), visibility: [{ name: 'global', deny: ['lookup_ordr'] }] };
    const error = await createHostFromConfig(file, { agent, env }).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/visibility layer "global": deny\[0\]: "lookup_ordr" is not a registered tool; did you mean "lookup_order"\?/);
    expect(existsSync(join(folder, 'data'))).toBe(false);
    expect(primary.requests).toHaveLength(0);
  });

  it('a missing key variable is a ConfigError naming the key and the variable, before anything is opened', async () => {
    const primary = fake.scenario(streamPlan(anthropicWire.streamFrames(answer('unused'))));
    const { file, folder } = writeConfig(supportConfig(primary, primary));
    const error = await createHostFromConfig(file, { tools: supportTools(new SupportBackend()), env: { SUPPORT_ANTHROPIC_KEY: PRIMARY_KEY } }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(
      new RegExp(`${file.replace(/[.]/g, '\\.')}:\\d+:\\d+: model\\.fallback\\[0\\]\\.apiKeyEnv: the environment variable SUPPORT_OPENAI_KEY is not set`),
    );
    expect((error as Error).message).not.toContain(PRIMARY_KEY);
    expect(existsSync(join(folder, 'data'))).toBe(false);
  });

  it('a trace.export.jsonl that cannot be written is a ConfigError naming file, line and key, before the store is opened (probe 9, P-2)', async () => {
    const { file, folder } = writeConfig(
      ['model: {provider: fake, name: m}', 'store: {kind: sqlite, path: data/agent.db}', 'trace:', '  export:', '    jsonl: blocker/turns.jsonl', ''].join(
        '\n',
      ),
    );
    writeFileSync(join(folder, 'blocker'), 'a file, not a folder');
    const modelClient = () => new ScriptedModelClient([reply('unused')]);
    const error = await createHostFromConfig(file, { modelClient }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(
      new RegExp(`^${file.replace(/[.]/g, '\\.')}:5:\\d+: trace\\.export\\.jsonl: cannot write .*blocker.* is a file, not a folder`),
    );
    expect(existsSync(join(folder, 'data'))).toBe(false);
  });

  it('a model baseURL carrying a credential is refused as store.url with a password is: config files get committed (probe 9, P-1)', async () => {
    for (const [baseURL, key] of [
      ['http://user:sk-ant-api03-in-the-url@proxy.local', 'model.baseURL'],
      ['https://gateway.local/v1?key=AIzaSyInTheQuery0123', 'model.baseURL'],
      ['https://gateway.local/v1?api_key=in-the-query-0123', 'model.baseURL'],
    ] as const) {
      const { file } = writeConfig(
        ['model:', '  provider: anthropic', '  name: claude-sonnet-4-6', `  baseURL: "${baseURL}"`, 'store: {kind: memory}', ''].join('\n'),
      );
      const error = await createHostFromConfig(file, { env }).catch((e: unknown) => e);
      expect(error, baseURL).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toContain(`${file}:4:`);
      expect((error as Error).message).toMatch(
        new RegExp(`${key.replace('.', '\\.')}: must not carry credentials \\(config files get committed and shared\\)`),
      );
      expect((error as Error).message).not.toMatch(/sk-ant-api03-in-the-url|AIzaSyInTheQuery0123|in-the-query-0123/);
    }
    const { file } = writeConfig(
      [
        'model:',
        '  provider: anthropic',
        '  name: claude-sonnet-4-6',
        '  fallback:',
        '    - {provider: openai-chat, name: gpt-4.1-mini, baseURL: "https://u:p4ss@gw.local/v1"}',
        'store: {kind: memory}',
        '',
      ].join('\n'),
    );
    await expect(createHostFromConfig(file, { env })).rejects.toThrow(/model\.fallback\[0\]\.baseURL: must not carry credentials/);
    // A plain address (a proxy, a gateway, a test fake) is still fine.
    const plain = writeConfig(['model:', '  provider: fake', '  baseURL: "http://localhost:8080/v1?region=eu"', 'store: {kind: memory}', ''].join('\n'));
    const host = await createHostFromConfig(plain.file, { modelClient: () => new ScriptedModelClient([reply('hi')]) });
    await host.close();
  });

  it('provider "fake" needs a client from code; with modelClient it is built, and the fallback is asked for its own model', async () => {
    const { file } = writeConfig(
      [
        'model:',
        '  provider: fake',
        '  name: primary-model',
        '  fallback:',
        '    - {provider: fake, name: backup-model}',
        'retry: {immediateRetries: 0, backoffRetries: 0}',
        'store: {kind: memory}',
        '',
      ].join('\n'),
    );
    await expect(createHostFromConfig(file)).rejects.toThrow(/agent\.yaml:2:\d+: model\.provider: provider "fake" cannot be built from the config alone/);

    const built: string[] = [];
    const primaryModel = new ScriptedModelClient([transportError('overloaded', { status: 529 })], { name: 'primary' });
    const backup = new ScriptedModelClient([reply('from the backup')], { name: 'backup' });
    const host = await createHostFromConfig(file, {
      modelClient: (spec) => {
        built.push(`${spec.key}=${spec.name}`);
        return spec.key === 'model' ? primaryModel : backup;
      },
    });
    expect(built).toEqual(['model=primary-model', 'model.fallback[0]=backup-model']);
    expect((await host.handle('c', 'hi')).reply).toBe('from the backup');
    expect(primaryModel.requests.map((r) => r.model)).toEqual(['primary-model']);
    expect(backup.requests.map((r) => r.model)).toEqual(['backup-model']); // the loop asks each client for its own model
    await host.close();
  });

  // Outside probe 35, F3: the host read credentials from process.env whatever env it was given, so the gate's
  // production host redacted a CI machine's database password out of the case's user text, and the loop host did not.
  it("redacts the credentials of the env it is given, not the process's", async () => {
    const plain = { model: { provider: 'fake', name: 'plain-model' }, store: { kind: 'memory' } } as unknown as HostConfig;
    const machine = 'Qx7-machine-db-pw';
    const given = 'Zk4-given-api-key';
    process.env.PROBE_DB_PASSWORD = machine;
    try {
      const model = new ScriptedModelClient([reply('noted'), reply('noted')], { name: 'plain' });
      const host = await createHostFromConfig(plain, { modelClient: () => model, env: { PROBE_API_KEY: given } });
      await host.handle('c', `the old one was ${machine}`);
      await host.handle('c', `and ${given} leaked`);
      const said = model.requests.flatMap((r) => r.messages.map((m) => JSON.stringify(m.content)));
      expect(said.some((text) => text.includes(`the old one was ${machine}`))).toBe(true);
      expect(said.some((text) => text.includes(given))).toBe(false);
      await host.close();
    } finally {
      delete process.env.PROBE_DB_PASSWORD;
    }
  });

  it('a config given as a plain object (from JavaScript, not parsed from YAML) gets its defaults, or a ConfigError naming the key', async () => {
    const plain = { model: { provider: 'fake', name: 'plain-model' }, store: { kind: 'memory' } } as unknown as HostConfig;
    const host = await createHostFromConfig(plain, { modelClient: () => new ScriptedModelClient([reply('from a plain config')], { name: 'plain' }) });
    expect((await host.handle('c', 'hi')).reply).toBe('from a plain config');
    await host.close();

    const wrong = { model: { provider: 'fake', name: 'm' }, store: { kind: 'sqlite' }, budgets: { maxSteps: 'ten' } } as unknown as HostConfig;
    const refused = createHostFromConfig(wrong, { modelClient: () => new ScriptedModelClient([], { name: 'never' }) });
    await expect(refused).rejects.toBeInstanceOf(ConfigError);
    await expect(refused).rejects.toThrow(/budgets\.maxSteps/);
  });

  it('takes the agent factory of a loopgate.config.ts, builds it to check it and once per conversation, and runs its tools', async () => {
    const { file } = writeConfig(['model: {provider: fake, name: m}', 'store: {kind: memory}', ''].join('\n'));
    const backend = new SupportBackend();
    const builds: (string | undefined)[] = [];
    const factory = (context: AgentContext) => {
      builds.push(context.conversationId);
      return { tools: supportTools(backend), system: 'You are the support agent.' };
    };
    const model = new ScriptedModelClient([
      toolUse([call('r1', 'issue_refund', { order_id: 'ORD-1001', amount: 20, reason: 'late' })]),
      reply('Refunded.'),
      reply('Anything else?'),
    ]);
    const host = await createHostFromConfig(file, { agent: factory, modelClient: () => model });
    expect((await host.handle('a', 'Refund ORD-1001')).reply).toBe('Refunded.');
    expect((await host.handle('b', 'Hello')).reply).toBe('Anything else?');
    // Once to check against the config before anything opens (no conversation), then once per conversation.
    expect([builds, backend.refunds.length, model.requests[0]!.system]).toEqual([[undefined, 'a', 'b'], 1, 'You are the support agent.']);
    await host.close();
  });

  it("redacts a factory's secrets from the first request on, before it builds an agent for a conversation", async () => {
    const { file } = writeConfig(['model: {provider: fake, name: m}', 'store: {kind: memory}', ''].join('\n'));
    const secret = 'tenant-Key-5a4b3c2d1e';
    const host = await createHostFromConfig(file, { agent: () => ({ system: 'ok', secrets: [secret] }), modelClient: () => new ScriptedModelClient([]) });
    const refused = await host.handle(`conv-${secret}`, 'hi');
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused)).not.toContain(secret);
    await host.close();
  });
});

describe("createHostFromConfig: the agent's own limits", () => {
  const lookups = (n: number) => toolUse(Array.from({ length: n }, (_, i) => call(`l${i}`, 'lookup_order', { order_id: 'ORD-1001' })));
  const agent = () => ({ tools: supportTools(new SupportBackend()), config: { maxToolCallsPerTurn: 2, retry: { immediateRetries: 0, backoffRetries: 0 } } });

  it('hold where the YAML writes no limit: no YAML default overrides them (outside probe 7, F1)', async () => {
    const { file } = writeConfig(['model: {provider: fake, name: m}', 'store: {kind: memory}', ''].join('\n'));
    const model = new ScriptedModelClient([lookups(3), reply('never asked')]);
    const host = await createHostFromConfig(file, { agent: agent(), modelClient: () => model });
    const answer = await host.handle('c', 'Where is ORD-1001?');
    expect(answer.turns[0]).toMatchObject({ outcome: 'failed{budget_exhausted}', toolCalls: 0 });
    expect(model.requests).toHaveLength(1);
    await host.close();

    const overloaded = new ScriptedModelClient([transportError('overloaded', { status: 529 }), reply('never asked')]);
    const strict = await createHostFromConfig(file, { agent: agent(), modelClient: () => overloaded });
    expect((await strict.handle('c', 'hi')).turns[0]?.outcome).toBe('failed{provider_unavailable}');
    expect(overloaded.requests).toHaveLength(1); // the agent asked for no retries
    await strict.close();
  });

  it('hold for a config checked in code (checkedHostConfig), as for one read from a file', async () => {
    // Checked again inside, every default the schema filled in counted as written and overrode the agent's limits.
    const config = checkedHostConfig({ model: { provider: 'fake', name: 'm' }, store: { kind: 'memory' } });
    const model = new ScriptedModelClient([lookups(3), reply('never asked')]);
    const host = await createHostFromConfig(config, { agent: agent(), modelClient: () => model });
    expect((await host.handle('c', 'Where is ORD-1001?')).turns[0]).toMatchObject({ outcome: 'failed{budget_exhausted}', toolCalls: 0 });
    expect(model.requests).toHaveLength(1);
    await host.close();

    const written = checkedHostConfig({ model: { provider: 'fake', name: 'm' }, store: { kind: 'memory' }, budgets: { maxToolCallsPerTurn: 3 } });
    const obeyed = new ScriptedModelClient([lookups(3), reply('Delivered.')]);
    const loose = await createHostFromConfig(written, { agent: agent(), modelClient: () => obeyed });
    expect((await loose.handle('c', 'Where is ORD-1001?')).reply).toBe('Delivered.');
    await loose.close();
  });

  it('give way to the limits the YAML writes, key by key', async () => {
    const { file } = writeConfig(['model: {provider: fake, name: m}', 'store: {kind: memory}', 'budgets: {maxToolCallsPerTurn: 3}', ''].join('\n'));
    const model = new ScriptedModelClient([lookups(3), reply('Delivered.')]);
    const host = await createHostFromConfig(file, { agent: agent(), modelClient: () => model });
    expect((await host.handle('c', 'Where is ORD-1001?')).reply).toBe('Delivered.');
    await host.close();
  });
});
