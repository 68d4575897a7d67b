/**
 * A host config is input like any other: an alias bomb, a FIFO or invalid
 * UTF-8 is a ConfigError (an InputError) naming the file — never a raw
 * ReferenceError, never a hang at startup.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadHostConfig, parseHostConfig } from '../../src/host/config.ts';
import { InputError } from '../../src/kernel/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'loopgate-config-input-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const refusal = (fn: () => unknown): Error => {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    expect(error).toBeInstanceOf(InputError);
    return error as Error;
  }
  throw new Error('expected a ConfigError');
};

describe('host config input', () => {
  it('merge keys (<<: *anchor) are read, the own keys winning', () => {
    const config = parseHostConfig(
      'model: { provider: anthropic, name: x }\ntools:\n  <<: &base { deny: [close_account], ask: [wire] }\n  ask: [transfer_funds]\n',
      'agent.yaml',
    );
    expect(config.tools.deny).toEqual(['close_account']);
    expect(config.tools.ask).toEqual(['transfer_funds']);
  });

  it('a wait past the longest a timer keeps (2^31 - 1 ms) is refused naming its key: Node would fire it at once', () => {
    // Outside probe 18: a 30-day wait fires after 1 ms in production, while the gate's virtual clock waits it out.
    for (const [yaml, key] of [
      ['tools: { defaultTimeoutMs: 2592000000 }', 'tools.defaultTimeoutMs'],
      ['sessions: { idleTimeoutMs: 2592000000 }', 'sessions.idleTimeoutMs'],
      ['model: { provider: anthropic, name: x, timeoutMs: 2592000000 }', 'model.timeoutMs'],
      ['retry: { backoffMaxMs: 2592000000 }', 'retry.backoffMaxMs'],
      ['retry: { maxRetryAfterMs: 2592000000 }', 'retry.maxRetryAfterMs'],
      // Outside probe 38, F6: pg's connect timeout is a timer too.
      ['store: { kind: postgres, urlEnv: DB, connectTimeoutMs: 2592000000 }', 'store.connectTimeoutMs'],
    ] as const) {
      expect(refusal(() => parseHostConfig(`${yaml}\n`, 'agent.yaml')).message, key).toMatch(
        new RegExp(`^invalid config:\\nagent\\.yaml:1:\\d+: ${key.replace('.', '\\.')}: .*at most 2147483647 ms`),
      );
    }
    expect(parseHostConfig('tools: { defaultTimeoutMs: 2147483647 }\n', 'agent.yaml').tools.defaultTimeoutMs).toBe(2_147_483_647);
  });

  it('a PostgreSQL pool or lock connections past what a server serves are refused naming the key', () => {
    // Outside probe 38, F6: poolSize and maxLockConnections of 1e9 were taken.
    for (const key of ['poolSize', 'maxLockConnections'])
      expect(refusal(() => parseHostConfig(`store: { kind: postgres, urlEnv: DB, ${key}: 1000000000 }\n`, 'agent.yaml')).message).toMatch(
        new RegExp(`^invalid config:\\nagent\\.yaml:1:\\d+: store\\.${key}: .*at most 10000`),
      );
    expect(parseHostConfig('store: { kind: postgres, urlEnv: DB, poolSize: 10000 }\n', 'agent.yaml').store).toMatchObject({ poolSize: 10_000 });
  });

  it('a file of several documents is one line saying how many', () => {
    expect(refusal(() => parseHostConfig('model: { provider: anthropic, name: x }\n---\nmodel: { provider: fake }\n', 'agent.yaml')).message).toBe(
      'invalid config:\nagent.yaml:2:1: the file holds 2 YAML documents (separated by ---); loopgate reads one: keep one per file',
    );
  });

  it('an alias bomb is a ConfigError naming file and line', () => {
    const bomb = [
      'prompt:',
      '  identity: &a0 "x"',
      ...Array.from({ length: 9 }, (_, i) => `l${i + 1}: &a${i + 1} [${Array(10).fill(`*a${i}`).join(', ')}]`),
    ].join('\n');
    expect(refusal(() => parseHostConfig(bomb, 'agent.yaml')).message).toMatch(/agent\.yaml:\d+:\d+: YAML: aliases expand this document to more than/);
  });

  it('a FIFO named as the config is refused without blocking', () => {
    const path = join(dir, 'agent.yaml');
    execFileSync('mkfifo', [path]);
    expect(refusal(() => loadHostConfig(path)).message).toBe(`${path}: is a FIFO (named pipe), not a regular file; the config file must be a regular file`);
  });

  it('invalid UTF-8 names the byte offset', () => {
    const path = join(dir, 'latin1.yaml');
    writeFileSync(path, Buffer.from([0x6d, 0x6f, 0x64, 0x65, 0x6c, 0x3a, 0x20, 0xff, 0x0a]));
    expect(refusal(() => loadHostConfig(path)).message).toBe(`${path}: is not valid UTF-8: invalid byte sequence at byte offset 7`);
  });

  it('trace.export.otlp: a bad endpoint, credentials in the URL, a bad header name or variable each name the key', () => {
    const otlp = (body: string) => refusal(() => parseHostConfig(`trace:\n  export:\n    otlp: ${body}\n`, 'agent.yaml')).message;
    expect(otlp('{ endpoint: "localhost 4318" }')).toMatch(/agent\.yaml:3:\d+: trace\.export\.otlp\.endpoint: "localhost 4318" is not a URL/);
    expect(otlp('{ endpoint: "grpc://collector:4317" }')).toMatch(
      /trace\.export\.otlp\.endpoint: grpc: is not supported: OTLP over HTTP needs an http:\/\/ or https:\/\/ URL/,
    );
    expect(otlp('{ endpoint: "https://user:hunter2@collector/v1/traces" }')).toMatch(/trace\.export\.otlp\.endpoint: must not carry credentials/);
    expect(otlp('{ endpoint: "http://c:4318", headers: { "x key": KEY } }')).toMatch(/trace\.export\.otlp\.headers\.x key: not an HTTP header name/);
    expect(otlp('{ endpoint: "http://c:4318", headers: { x-key: "the-actual-key" } }')).toMatch(
      /trace\.export\.otlp\.headers\.x-key: an environment variable name/,
    );
    expect(otlp('{ endpoint: "http://c:4318", colour: blue }')).toMatch(/trace\.export\.otlp\.colour: unknown key; known: /);
    expect(refusal(() => parseHostConfig('trace:\n  export: stdout\n', 'agent.yaml')).message).toMatch(
      /trace\.export: use none, or an object with jsonl: FILE and\/or otlp: \{ endpoint: URL \}/,
    );
    expect(parseHostConfig('trace:\n  export: none\n', 'agent.yaml').trace.export).toEqual({});
  });
});
