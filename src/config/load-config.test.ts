/** Loading loopgate.config.ts: found upward, checked key by key, paths resolved from its folder; every problem names the file and the key. */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { InputError } from '../kernel/index.ts';
import { defineInvariant } from '../harness/invariants/index.ts';
import { BUNDLED_CONFIG, findConfigFile, loadConfig, missingPeerPackage, resolveConfig } from './load-config.ts';

const dir = mkdtempSync(join(tmpdir(), 'loopgate-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const FILE = join(dir, 'loopgate.config.ts');
const agent = () => ({});
const mine = defineInvariant({ id: 'mine-holds', title: 'mine', check: () => undefined });
const clash = defineInvariant({ id: 'invariant-13-side-effects-once', title: 'mine, under a built-in id', check: () => undefined });

describe('resolveConfig', () => {
  it('resolves agents, the default agent, and paths from the config’s folder', () => {
    const config = resolveConfig({ agents: { shop: agent }, scenarios: ['cases', '/abs/more'], out: 'out', baseline: 'b.json' }, FILE);
    expect([...config.registry.agents.keys()]).toEqual(['shop']);
    expect(config.registry.defaultAgent).toBe('shop'); // the only agent
    expect(config.scenarios).toEqual([join(dir, 'cases'), '/abs/more']);
    expect([config.out, config.baseline, config.root]).toEqual([join(dir, 'out'), join(dir, 'b.json'), dir]);
    expect(resolveConfig({}, FILE).scenarios).toEqual([join(dir, 'scenarios')]);
    const acme = { name: 'acme', clientFor: () => ({ unsupported: 'x' }) };
    expect(resolveConfig({ clients: { acme } }, FILE).registry.clients?.get('acme')).toBe(acme);
    expect(resolveConfig({}, FILE).registry.clients).toBeUndefined();
  });

  it('names the file and the key of every problem, as an input error', () => {
    const bad: [unknown, RegExp][] = [
      [undefined, /has no default export/],
      [42, /the default export must be a config object .*got 42/],
      // Probe 10 F1: a Promise is an object with no keys — it passed as an empty config and the gate ran without the agent.
      [Promise.resolve({ agents: { shop: agent } }), /the default export is a promise: loopgate does not await it; export the config itself/],
      [new Map([['agents', {}]]), /the default export must be a config object .*got a Map/],
      [{ agnets: {} }, /agnets: unknown key \(did you mean agents\?\)/],
      [{ agents: [] }, /agents: expected an object of agent factories by name, got a list/],
      [{ agents: { shop: 1 } }, /agents\.shop: expected a factory/],
      // Probe 26, F6: an @openai/agents Agent itself (not a factory): what loopgate takes instead, in one line.
      [
        { agents: { shop: { name: 'shop', instructions: 'Help.', handoffs: [], tools: [] } } },
        /agents\.shop: an @openai\/agents Agent is not a loopgate agent/,
      ],
      [{ agents: { 'no spaces': agent } }, /agents\.no spaces: an agent name is letters, digits/],
      [{ agents: { none: agent } }, /agents\.none: `none` is reserved/],
      [{ agents: { shop: agent }, defaultAgent: 'shpo' }, /defaultAgent: no agent "shpo" \(did you mean shop\?\)/],
      [{ clients: [] }, /clients: expected an object of contract harnesses by name/],
      [{ clients: { acme: { name: 'acme' } } }, /clients\.acme: expected a contract harness \(\{ name, clientFor/],
      [{ clients: { 'no spaces': { clientFor: () => ({ unsupported: 'x' }) } } }, /clients\.no spaces: a client name is letters, digits/],
      [{ clients: { acme: { clientFor: () => ({ unsupported: 'x' }), stop: 'later' } } }, /clients\.acme\.stop: expected a function, got/],
      [{ scenarios: 7 }, /scenarios: expected a path or a list of paths, got 7/],
      [{ invariants: [{ id: 'x' }] }, /invariants\[0\]: expected an invariant/],
      [{ invariants: [mine, mine] }, /invariants: two invariants have the id "mine-holds": give yours an id of its own/],
      [{ invariants: [clash] }, /invariants: two invariants have the id "invariant-13-side-effects-once" \(one of loopgate's\)/],
      [{ fuzz: { agent: 'ghost' } }, /fuzz\.agent: no agent "ghost"/],
      [{ fuzz: { args: { book: { not: 'an arbitrary' } } } }, /fuzz\.args\.book: expected a fast-check arbitrary/],
      [{ fuzz: { runs: 5 } }, /fuzz\.runs: unknown key/],
      // Outside probe 29, F1: a getter or a Proxy that throws when read was loopgate's "internal error", with a stack.
      [
        {
          get agents() {
            throw new Error('getter boom');
          },
        },
        /: agents: reading it threw: getter boom$/,
      ],
      [
        {
          agents: {
            get shop() {
              throw new Error('agent getter boom');
            },
          },
        },
        /: reading the config threw: agent getter boom \(a getter or a Proxy/,
      ],
      [
        new Proxy(
          {},
          {
            get() {
              throw new Error('proxy boom');
            },
          },
        ),
        /: reading the config threw: proxy boom \(a getter or a Proxy/,
      ],
    ];
    for (const [value, message] of bad) {
      let thrown: unknown;
      try {
        resolveConfig(value, FILE);
      } catch (error) {
        thrown = error;
      }
      expect(thrown, String(message)).toBeInstanceOf(InputError);
      expect((thrown as Error).message, String(message)).toMatch(new RegExp(`^${FILE.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: `));
      expect((thrown as Error).message).toMatch(message);
    }
    expect(() => resolveConfig({ fuzz: { args: { book: fc.constant({}) } } }, FILE)).not.toThrow();
  });
});

describe('finding and loading the config', () => {
  it('finds loopgate.config.ts from a subfolder upward, and falls back to the bundled suite', async () => {
    const project = join(dir, 'project');
    mkdirSync(join(project, 'src', 'deep'), { recursive: true });
    writeFileSync(join(project, 'agent.ts'), 'export const shop = () => ({ system: "You run a shop." });\n');
    // The config imports its agent as ./agent.js, as tsc users write it; the .ts file is found.
    writeFileSync(join(project, 'loopgate.config.ts'), "import { shop } from './agent.js';\nexport default { agents: { shop } };\n");
    expect(findConfigFile(join(project, 'src', 'deep'))).toBe(join(project, 'loopgate.config.ts'));
    const config = await loadConfig({ cwd: join(project, 'src', 'deep') });
    expect(config.file).toBe(join(project, 'loopgate.config.ts'));
    expect(config.bundled).toBe(false);
    expect((await config.registry.agents.get('shop')!({ clock: { now: () => 0, sleep: async () => {} }, random: Math.random })).system).toBe('You run a shop.');

    const empty = mkdtempSync(join(tmpdir(), 'loopgate-no-config-'));
    try {
      const bundled = await loadConfig({ cwd: empty });
      expect(bundled.bundled).toBe(true);
      expect(bundled.file).toBe(BUNDLED_CONFIG);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  // Outside probe 35, F6: it said "SyntaxError: Unexpected character '�'", where every other input names the byte.
  it('a config that is not UTF-8 is named so, with the byte offset', async () => {
    writeFileSync(join(dir, 'latin1.config.ts'), Buffer.from('// caf\xe9\nexport default {};\n', 'latin1'));
    await expect(loadConfig({ path: 'latin1.config.ts', cwd: dir })).rejects.toThrow(
      /latin1\.config\.ts: is not valid UTF-8: invalid byte sequence at byte offset 6$/,
    );
  });

  // Outside probe 40 (LOW): a loop adapter refusing its options at the config's top level was told as
  // "could not be loaded: TypeError: openAiAgent: …", with no line.
  it('a config whose top level throws names the line that threw; an adapter refusal is told in its own words', async () => {
    writeFileSync(
      join(dir, 'throws.config.ts'),
      [
        'const refuse = (why: string) => {',
        '  throw new TypeError(`openAiAgent: ${why}`);',
        '};',
        "refuse('maxTurns must be a whole number of at least 1, got 0');",
        'export default {};',
        '',
      ].join('\n'),
    );
    await expect(loadConfig({ path: 'throws.config.ts', cwd: dir })).rejects.toThrow(
      /throws\.config\.ts:2:\d+: could not be loaded: openAiAgent: maxTurns must be a whole number of at least 1, got 0$/,
    );
    writeFileSync(join(dir, 'user-bug.config.ts'), ['const x: any = undefined;', 'x.y;', 'export default {};', ''].join('\n'));
    await expect(loadConfig({ path: 'user-bug.config.ts', cwd: dir })).rejects.toThrow(
      /user-bug\.config\.ts:2:\d+: could not be loaded: TypeError: Cannot read properties of undefined/,
    );
  });

  it('a config that does not load, or a --config that is no file, is an input error naming it', async () => {
    writeFileSync(join(dir, 'broken.config.ts'), 'export default {\n');
    await expect(loadConfig({ path: 'broken.config.ts', cwd: dir })).rejects.toThrow(/broken\.config\.ts(:\d+:\d+)?: could not be loaded: /);
    await expect(loadConfig({ path: 'missing.ts', cwd: dir })).rejects.toThrow(/--config missing\.ts: no such file/);
    await expect(loadConfig({ path: '.', cwd: dir })).rejects.toThrow(/--config \.: not a file/);
    // A symbolic link loop is named as one, not as a missing file (probe 24, F7).
    symlinkSync('loop-b.config.ts', join(dir, 'loop-a.config.ts'));
    symlinkSync('loop-a.config.ts', join(dir, 'loop-b.config.ts'));
    await expect(loadConfig({ path: 'loop-a.config.ts', cwd: dir })).rejects.toThrow(
      /--config loop-a\.config\.ts: a symbolic link loop: too many levels of symbolic links \(ELOOP\)/,
    );
  });

  it('a --config that is not a JavaScript or TypeScript module (a JSON or YAML file) says what a config is, loading nothing', async () => {
    for (const name of ['settings.json', 'host.yaml', 'config']) {
      writeFileSync(join(dir, name), name.endsWith('.json') ? '{"agents": {}}\n' : 'agents: {}\n');
      await expect(loadConfig({ path: name, cwd: dir })).rejects.toThrow(
        new RegExp(
          `^--config ${name.replace('.', '\\.')}: a config is a JavaScript or TypeScript module \\(\\.ts, \\.mts, \\.js or \\.mjs\\) whose default export is defineConfig\\(\\{ … \\}\\)`,
        ),
      );
    }
  });
});

describe('each agent is built once as the config loads, and checked', () => {
  it('the scenario checks read that build: a factory runs twice for the load (the second to compare its tools) and the checks together', async () => {
    const project = mkdtempSync(join(dir, 'once-'));
    writeFileSync(
      join(project, 'loopgate.config.ts'),
      'export const built = { count: 0 };\nexport default { agents: { shop: () => { built.count++; return { system: "You run a shop." }; } } };\n',
    );
    writeFileSync(join(project, 'a.yaml'), 'name: a\ninbox:\n  - say: hi\nprovider:\n  script:\n    - reply: hi\nexpect: {}\n');
    const config = await loadConfig({ cwd: project });
    const { checkScenarioAgents } = await import('../harness/scenario/check-agents.ts');
    const { loadScenarioFile } = await import('../harness/scenario/load.ts');
    await checkScenarioAgents([loadScenarioFile(join(project, 'a.yaml'), project)], config.registry);
    const module = (await import(join(project, 'loopgate.config.ts'))) as { built: { count: number } };
    // Probe 17, F5: a second build, compared with the first (same tool names, schemas, side effects); the checks build none.
    expect(module.built.count).toBe(2);
    expect(config.registry.inspected?.get('shop')?.problems).toEqual([]);
  });

  it('a factory that throws, or an agent the kernel refuses, is a config error naming the file, the line and the agent', async () => {
    const project = mkdtempSync(join(dir, 'refused-'));
    writeFileSync(
      join(project, 'loopgate.config.ts'),
      [
        'export default {',
        '  agents: {',
        '    shop: () => { throw new Error("no database\\nsecond line"); },',
        '    bank: () => ({ visibility: [{ name: "global", deny: ["admin"] }] }),',
        '  },',
        '};',
        '',
      ].join('\n'),
    );
    const error = await loadConfig({ cwd: project }).catch((e: unknown) => e as Error);
    expect(error).toBeInstanceOf(InputError);
    expect((error as Error).message.split('\n')).toEqual([
      `${join(project, 'loopgate.config.ts')}:3: agents.shop: the factory threw: no database`,
      `${join(project, 'loopgate.config.ts')}:4: agents.bank: visibility layer "global": deny[0]: "admin" is not a registered tool`,
    ]);
  });
});

describe('missingPeerPackage', () => {
  const notFound = (message: string) => Object.assign(new Error(message), { code: 'ERR_MODULE_NOT_FOUND' });
  it('names the loop entry and the package its adapter could not import (probe 25, F11)', () => {
    expect(missingPeerPackage(notFound("Cannot find package 'ai' imported from /app/node_modules/loopgate/dist/src/loops/ai-sdk/adapter.js"))).toEqual({
      module: 'loopgate/loops/ai-sdk',
      package: 'ai',
    });
    expect(
      missingPeerPackage(notFound("Cannot find package '@openai/agents' imported from /app/node_modules/loopgate/dist/src/loops/openai-agents/adapter.js")),
    ).toEqual({ module: 'loopgate/loops/openai-agents', package: '@openai/agents' });
  });
  it("leaves alone a package the team's own code imports, and other errors", () => {
    expect(missingPeerPackage(notFound("Cannot find package 'ai' imported from /app/src/agent.ts"))).toBeUndefined();
    expect(
      missingPeerPackage(notFound("Cannot find package 'left-pad' imported from /app/node_modules/loopgate/dist/src/loops/ai-sdk/adapter.js")),
    ).toBeUndefined();
    expect(missingPeerPackage(new Error("Cannot find package 'ai' imported from /x/src/loops/ai-sdk/adapter.js"))).toBeUndefined();
  });
});
