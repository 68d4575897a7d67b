/**
 * The production host's config file, as a deploy gives it: `contract:host-config/<id>`.
 *
 * Every scenario's host is built in code, so the checks a config file meets
 * before the host opens anything — tool lists that contradict each other, keys
 * and collector headers read from the environment, store and trace paths,
 * addresses that carry credentials — and the parts only a config builds (the
 * OTLP exporter, the SDK clients named by provider) were never run by the gate:
 * a check turned the wrong way passed it.
 *
 * The table: each row is an agent.yaml (and its environment) written to a
 * folder of its own and given to `createHostFromConfig` as a deploy
 * does. A refused row must be refused with exactly its message — every problem
 * on its line, file:line:column and key — and leave the folder as it was: no
 * store, no trace file. A served row is built, answers a message and is closed;
 * its checks say what the config's parts did.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { call, reply, toolUse } from '../../providers/fake/results.ts';
import { ScriptedModelClient } from '../../providers/fake/scripted.ts';
import { checkedHostConfig, ConfigError, type HostConfig } from '../host/config.ts';
import { checkHostConfig, createHostFromConfig } from '../host/from-config.ts';
import type { ResponseEnvelope } from '../host/envelope.ts';
import type { AgentHost } from '../host/host.ts';
import { defineTool, type Agent, type ModelClient, type ModelRequest, type ModelResult } from '../kernel/index.ts';
import type { CheckResult } from '../report/results.ts';
import { checksCase, type Case } from './cases.ts';
import { VirtualClock } from './virtual-clock.ts';

const FILE = 'src/harness/host-config-cases.ts';

const noArgs = z.object({ orderId: z.string() });
/** An agent with a refund, a voucher and a notice: the tools the rows' lists name. */
const AGENT: Agent = {
  system: 'You help customers with their orders.',
  tools: [
    defineTool({ name: 'issue_refund', description: 'Refund an order.', input: noArgs, sideEffect: 'STATEFUL', run: () => 'refunded' }),
    defineTool({ name: 'issue_voucher', description: 'Give a voucher.', input: noArgs, sideEffect: 'STATEFUL', run: () => 'sent' }),
    defineTool({ name: 'notify_customer', description: 'Email the customer.', input: noArgs, sideEffect: 'NONE', run: () => 'emailed' }),
  ],
};

const OTLP_TOKEN = 'Bearer otlp-tok-4Hq9Zt7Lw2Vx8Kc3';
/** A caller's W3C trace and span (its `traceparent`). */
const CALLER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';

/** What a served row's checks are given. */
interface Served {
  readonly host: AgentHost;
  readonly folder: string;
  /** Each request the model was sent, in order. */
  readonly requests: () => readonly ModelRequest[];
  /** The collector's requests, once the host has closed (a row with `collector`). */
  readonly received: () => readonly CollectorRequest[];
  /** A row with `virtualTime`: the host's clock (drive the host's work with `clock.run`). */
  readonly clock?: VirtualClock;
}

interface CollectorRequest {
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

interface Row {
  readonly id: string;
  readonly title: string;
  /** agent.yaml's lines; `{collector}` is the address of a collector started for the row. */
  readonly yaml: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
  /** Files the row puts in the folder first (a file where the config wants a folder; `a -> b`: a link a to b). */
  readonly files?: readonly string[];
  /** The agent served, when not AGENT. */
  readonly agent?: Agent;
  /** Built without a model client: the config's own SDK clients are built. */
  readonly ownClients?: true;
  /** The code's model client is none (an object without \`complete\`): the host refuses it as it is built, after the store opened. */
  readonly notAClient?: true;
  /** What the scripted model answers, when not two replies. */
  readonly script?: () => ModelResult[];
  /** The host runs on a virtual clock (`Served.clock`): a timeout is judged by its length, at no real cost. */
  readonly virtualTime?: true;
  /** Refused with exactly this message; `{file}` is agent.yaml's path, `{folder}` its folder. */
  readonly refused?: string;
  /**
   * What `loopgate check-host` (`checkHostConfig`, opening nothing and reading no
   * key) says of the same file: by default what the host said (refused alike, or
   * passed). `passes`: what only the host finds, building what check-host does not
   * (the SDK clients and their keys, the collector's headers from the environment).
   */
  readonly checkHost?: 'passes' | { readonly refuses: string };
  /**
   * Built in code: the host is given `checkedHostConfig(code)` (the object a team's code writes, checked and given
   * the schema's defaults), not the file; check-host is given the same object.
   */
  readonly code?: Readonly<Record<string, unknown>>;
  /** The host (and check-host) is given this path in the folder instead of agent.yaml (a file that is not there). */
  readonly configPath?: string;
  /** Served: the checks on what the host did with one message. */
  readonly served?: (got: Served) => Promise<CheckResult[]>;
  readonly collector?: true;
}

const MODEL = 'model: {provider: fake, name: support-model}';

/** What the traceparent row's tool was handed, in order. */
const seenTraceparents: string[] = [];

/**
 * An agent whose tools declare no timeout of their own and no limits: the YAML's limits are the only ones
 * (outside probe 27, F2: a host that dropped them passed every gate). `wait_for_courier` waits until aborted.
 */
const UNLIMITED: Agent = {
  system: 'You help customers with their orders.',
  tools: [
    defineTool({
      name: 'wait_for_courier',
      description: 'Wait until the courier answers.',
      input: noArgs,
      sideEffect: 'NONE',
      run: (_args, ctx) => new Promise((_resolve, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason), { once: true })),
    }),
    defineTool({ name: 'issue_refund', description: 'Refund an order.', input: noArgs, sideEffect: 'STATEFUL', run: () => 'refunded' }),
  ],
};

const ROWS: readonly Row[] = [
  {
    id: 'tool-default-timeout-written-applies-served',
    title: 'tools.defaultTimeoutMs times out a tool that declares no timeout of its own, at its length: the answer names the call in doubt (TIMEOUT)',
    agent: UNLIMITED,
    virtualTime: true,
    yaml: [MODEL, 'tools:', '  defaultTimeoutMs: 500'],
    script: () => [toolUse([call('wait', 'wait_for_courier', { orderId: 'ORD-1001' })]), reply('The courier is not answering.')],
    served: async ({ host, clock }) => {
      const got = await clock!.run(host.handle('orders-1', 'Where is the courier?'));
      const doubt = JSON.stringify(got.turns.flatMap((t) => t.inDoubt ?? []));
      const want = JSON.stringify([{ call: 'wait', tool: 'wait_for_courier', code: 'TIMEOUT' }]);
      // A NONE call is tried three times: 3 × 500 ms of the host's clock (the host's own default would be 3 × 30 s).
      const waited = clock!.now();
      return [
        answeredOk('a message is answered', [got]),
        { name: 'the call is in doubt, timed out', passed: doubt === want, message: doubt, expected: want, actual: doubt },
        { name: 'timed out at the YAML default', passed: waited === 1_500, message: `${waited} ms`, expected: '1500 ms', actual: `${waited} ms` },
      ];
    },
  },
  {
    id: 'tool-call-budget-written-applies-served',
    title: 'budgets.maxToolCallsPerTurn stops a turn whose model asks for more calls than it allows: 422 failed{budget_exhausted}, none run',
    agent: UNLIMITED,
    yaml: [MODEL, 'budgets:', '  maxToolCallsPerTurn: 2'],
    script: () => [
      toolUse([
        call('r1', 'issue_refund', { orderId: 'ORD-1' }),
        call('r2', 'issue_refund', { orderId: 'ORD-2' }),
        call('r3', 'issue_refund', { orderId: 'ORD-3' }),
      ]),
      reply('Refunded.'),
    ],
    served: async ({ host }) => {
      const got = await host.handle('orders-1', 'Refund ORD-1, ORD-2 and ORD-3.');
      const said = `${got.status} ${got.turns.map((t) => `${t.outcome} ${t.toolCalls} call(s)`).join(', ')}`;
      const want = '422 failed{budget_exhausted} 0 call(s)';
      return [{ name: 'the turn is stopped at the YAML budget before any call runs', passed: said === want, message: said, expected: want, actual: said }];
    },
  },
  {
    id: 'model-settings-written-sent-served',
    title: 'model.maxTokens and model.temperature the YAML writes are what the model is asked with',
    yaml: ['model: {provider: fake, name: support-model, maxTokens: 777, temperature: 0.3}'],
    served: async ({ host, requests }) => {
      const got = await host.handle('orders-1', 'Where is my order?');
      const sent = requests().map((r) => `maxTokens ${r.maxTokens}, temperature ${r.temperature}`);
      const want = 'maxTokens 777, temperature 0.3';
      return [
        answeredOk('a message is answered', [got]),
        {
          name: 'sent with the YAML model settings',
          passed: sent.length === 1 && sent[0] === want,
          message: sent.join('; '),
          expected: want,
          actual: sent.join('; '),
        },
      ];
    },
  },
  {
    id: 'agent-limits-kept-where-yaml-is-silent-served',
    title: "an agent's own tool-call budget holds where the YAML writes no budgets (no YAML default overrides it)",
    agent: { ...UNLIMITED, config: { maxToolCallsPerTurn: 1 } },
    yaml: [MODEL],
    script: twoRefunds,
    served: stoppedAtTheAgentsBudget,
  },
  {
    id: 'agent-limits-kept-where-a-config-built-in-code-is-silent-served',
    title:
      "a config built in code (checkedHostConfig) that writes no budgets keeps the agent's own tool-call budget: the defaults the schema filled in are not its author's",
    agent: { ...UNLIMITED, config: { maxToolCallsPerTurn: 1 } },
    yaml: [],
    code: { model: { provider: 'fake', name: 'support-model' }, store: { kind: 'memory' } },
    script: twoRefunds,
    served: stoppedAtTheAgentsBudget,
  },
  {
    id: 'model-provider-not-set-served-check-host-refuses',
    title:
      'a file naming no model provider is served with the client the code gives, but check-host refuses it: deployed alone it would serve the scripted fake',
    yaml: ['model: {name: support-model}'],
    checkHost: {
      refuses:
        "{file}:1:8: model.provider: not set: the host would serve loopgate's scripted fake model; name the provider (anthropic, openai-chat or openai-responses), or write provider: fake if your code passes its own modelClient",
    },
    served: async ({ host }) => [answeredOk('a message is answered', [await host.handle('orders-1', 'Where is my order?')])],
  },
  {
    id: 'idle-limits-at-their-bounds-served',
    title:
      'sessions.idleTimeoutMs closes a conversation idle exactly that long, and sessions.maxIdle holds exactly that many idle: the least recently used beyond it is closed',
    virtualTime: true,
    yaml: [MODEL, 'sessions:', '  maxIdle: 2', '  idleTimeoutMs: 1000'],
    script: () => ['ORD-1001', 'ORD-1002', 'ORD-1003', 'ORD-1004'].map((order) => reply(`${order} ships today.`)),
    served: async ({ host, clock }) => {
      // orders-1 goes idle at 0; orders-2 going idle at 1,000 ms finds it idle exactly the timeout: closed.
      const first = await clock!.run(host.handle('orders-1', 'Where is ORD-1001?'));
      await clock!.advance(1_000);
      const second = await clock!.run(host.handle('orders-2', 'Where is ORD-1002?'));
      await clock!.run(host.idle());
      const atTimeout = `${host.stats().idle} idle`;
      // Two more at the same instant: orders-2 and orders-3 idle is maxIdle exactly (both held); orders-4 makes three,
      // and orders-2, the least recently used, is closed.
      const third = await clock!.run(host.handle('orders-3', 'Where is ORD-1003?'));
      await clock!.run(host.idle());
      const atMax = `${host.stats().idle} idle`;
      const fourth = await clock!.run(host.handle('orders-4', 'Where is ORD-1004?'));
      await clock!.run(host.idle());
      const beyondMax = `${host.stats().idle} idle`;
      return [
        answeredOk('the messages are answered', [first, second, third, fourth]),
        sameAs('a conversation idle exactly idleTimeoutMs is closed', atTimeout, '1 idle'),
        sameAs('maxIdle conversations idle are all held', atMax, '2 idle'),
        sameAs('one more idle closes the least recently used: maxIdle are held', beyondMax, '2 idle'),
      ];
    },
  },
  {
    id: 'idle-timeout-written-applies-served',
    title: 'sessions.idleTimeoutMs closes a conversation idle longer than it, and keeps one idle shorter: once another goes idle, only those are held',
    virtualTime: true,
    yaml: [MODEL, 'sessions:', '  idleTimeoutMs: 1000'],
    script: () => [reply('ORD-1001 ships today.'), reply('ORD-1002 shipped.'), reply('ORD-1003 is packed.')],
    served: async ({ host, clock }) => {
      // orders-1 goes idle at 0 and orders-2 at 1,500 ms; orders-3 going idle at 1,600 ms closes only orders-1 (idle
      // 1,600 ms > 1,000), not orders-2 (idle 100 ms): a timeout read ten times too long or too short holds the wrong ones.
      const first = await clock!.run(host.handle('orders-1', 'Where is my order?'));
      await clock!.advance(1_500);
      const second = await clock!.run(host.handle('orders-2', 'Where is my order?'));
      await clock!.advance(100);
      const third = await clock!.run(host.handle('orders-3', 'Where is my order?'));
      await clock!.run(host.idle());
      const { open, idle } = host.stats();
      const said = `${open} open, ${idle} idle`;
      return [
        answeredOk('the messages are answered', [first, second, third]),
        {
          name: 'only the conversation idle past the timeout is closed',
          passed: said === '2 open, 2 idle',
          message: said,
          expected: '2 open, 2 idle',
          actual: said,
        },
      ];
    },
  },
  {
    id: 'second-host-on-a-claimed-store-refused-at-start',
    title:
      'a second host started on a SQLite store another host serves is refused at start, its startup sweep failing, and closed: the first keeps serving, a host started once the first closed is served',
    yaml: [MODEL, 'store: {kind: sqlite, path: data/support.db}'],
    script: () => [reply('ORD-1001 ships today.'), reply('ORD-1002 shipped.')],
    served: async ({ host, folder }) => {
      // Outside probe 28, F12: a createHostFromConfig that swallowed a failed startup sweep returned a host that
      // serves with crashed turns unswept and nobody told. The sweep fails here as a deploy's would: the store's
      // writer claim is held by the host already serving it.
      const start = (script: ModelResult[]) =>
        createHostFromConfig(join(folder, 'agent.yaml'), { agent: AGENT, env: {}, modelClient: () => new ScriptedModelClient(script) });
      let second: AgentHost | undefined;
      let refusal = 'started (no error)';
      try {
        second = await start([reply('from the second host')]);
      } catch (error) {
        refusal = error instanceof Error ? error.message : String(error);
      }
      await second?.close();
      const first = await host.handle('orders-1', 'Where is ORD-1001?');
      await host.close();
      let third: AgentHost | undefined;
      let after: ResponseEnvelope | string;
      try {
        third = await start([reply('ORD-1003 is packed.')]);
        after = await third.handle('orders-2', 'Where is ORD-1003?');
      } catch (error) {
        after = error instanceof Error ? error.message : String(error);
      } finally {
        await third?.close();
      }
      const claimed = refusal.includes('is in use by another loopgate host') && second === undefined;
      const open = openFilesUnder(folder);
      return [
        {
          name: 'the second host is refused at start, naming the claim',
          passed: claimed,
          message: refusal,
          expected: 'an error saying the store is in use by another loopgate host',
          actual: second === undefined ? refusal : 'a host was returned',
        },
        answeredOk('the first host keeps serving', [first]),
        typeof after === 'string'
          ? { name: 'a host started once the first closed is served', passed: false, message: after }
          : answeredOk('a host started once the first closed is served', [after]),
        {
          name: 'once every host closed, nothing holds the store file open (the refused host was closed too)',
          passed: open === undefined || open.length === 0,
          message: open === undefined ? 'open files cannot be listed here (no /proc/self/fd)' : open.join(', ') || 'none open',
          expected: 'none open',
          actual: open?.join(', ') || 'none open',
        },
      ];
    },
  },
  {
    id: 'tool-denied-and-asked-by-name-refused',
    title: 'a tool both denied and asked by name is refused naming both lines',
    yaml: [MODEL, 'tools:', '  deny: [issue_refund]', '  ask: [issue_refund]'],
    refused:
      'invalid config:\n{file}:4:9: tools.ask[0]: issue_refund is also denied by tools.deny[0] ({file}:3:10): a denied tool is never asked for; keep it in one list',
  },
  {
    id: 'tool-denied-by-a-pattern-and-asked-refused',
    title: 'a tool asked by name that a deny pattern matches is refused naming the pattern',
    yaml: [MODEL, 'tools:', '  deny:', '    - notify_customer', '    - "issue_*"', '  ask: [issue_voucher]'],
    refused:
      'invalid config:\n{file}:6:9: tools.ask[0]: issue_voucher is also denied by tools.deny[1] ({file}:5:7): a denied tool is never asked for; keep it in one list',
  },
  {
    id: 'tool-asked-outside-the-allow-list-refused',
    title: 'a tool asked by name that the allow list hides is refused',
    yaml: [MODEL, 'tools:', '  allow: [notify_customer]', '  ask: [issue_refund]'],
    refused:
      'invalid config:\n{file}:4:9: tools.ask[0]: issue_refund is not in tools.allow ({file}:3:10): a tool the allow list hides is never asked for; allow it or drop the ask',
  },
  {
    id: 'ask-pattern-denied-as-it-is-refused',
    title: 'an ask pattern the deny list holds as it is (or a deny of everything) is refused: nothing it matches is ever asked',
    yaml: [MODEL, 'tools:', '  deny: ["*"]', '  ask: ["issue_*"]'],
    refused:
      'invalid config:\n{file}:4:9: tools.ask[0]: issue_* is also denied by tools.deny[0] ({file}:3:10): a denied tool is never asked for; keep it in one list',
  },
  {
    id: 'tool-denied-and-allowed-by-name-refused',
    title: 'a tool both denied and allowed by name is refused naming both lines: the deny hides it, the allow says to offer it',
    yaml: [MODEL, 'tools:', '  deny: [issue_refund]', '  allow: [issue_refund, notify_customer]'],
    refused:
      'invalid config:\n{file}:4:11: tools.allow[0]: issue_refund is also denied by tools.deny[0] ({file}:3:10): a deny is never lifted, so it is never offered; keep it in one list',
  },
  {
    id: 'mode-denying-what-it-allows-refused',
    title: 'a mode whose deny pattern matches a tool its own allow list names is refused, and an allow pattern the deny holds as it is',
    yaml: [
      MODEL,
      'tools:',
      '  modes:',
      '    read-only: {deny: ["issue_*"], allow: [issue_voucher, notify_customer]}',
      '    none: {deny: ["*"], allow: ["notify_*"]}',
    ],
    refused: [
      'invalid config:',
      '{file}:4:44: tools.modes.read-only.allow[0]: issue_voucher is also denied by tools.modes.read-only.deny[0] ({file}:4:24): a deny is never lifted, so it is never offered; keep it in one list',
      '{file}:5:33: tools.modes.none.allow[0]: notify_* is also denied by tools.modes.none.deny[0] ({file}:5:19): a deny is never lifted, so it is never offered; keep it in one list',
    ].join('\n'),
  },
  {
    id: 'ask-pattern-reaching-past-a-deny-served',
    title: 'an ask pattern reaching past a deny is served (it stays for tools to come), and the lists that do not overlap',
    yaml: [MODEL, 'tools:', '  deny: [issue_refund]', '  allow: ["issue_*", notify_customer]', '  ask: ["*_refund", issue_voucher]'],
    served: async ({ host }) => {
      const got = await host.handle('orders-1', 'Where is my order?');
      return [answeredOk('a message is answered', [got])];
    },
  },
  {
    id: 'prompt-identity-then-deployment-sent',
    title: "an agent with no system prompt of its own is sent the config's: its identity, then its deployment note",
    agent: { tools: AGENT.tools! },
    yaml: [MODEL, 'prompt:', '  identity: You are the support agent of Acme Outdoor.', '  deployment: "Deployment: EU region. Quote prices in euros."'],
    served: async ({ host, requests }) => {
      const got = await host.handle('orders-1', 'Where is my order?');
      const sent = requests().map((request) => request.system);
      const identity = 'You are the support agent of Acme Outdoor.';
      const deployment = 'Deployment: EU region. Quote prices in euros.';
      const system = sent[0] ?? '';
      const ordered = system.includes(identity) && system.includes(deployment) && system.indexOf(identity) < system.indexOf(deployment);
      return [
        answeredOk('a message is answered', [got]),
        {
          name: 'the system prompt holds the identity, then the deployment note',
          passed: sent.length === 1 && ordered,
          message: sent.length === 1 ? JSON.stringify(system) : `${sent.length} request(s) sent`,
          expected: `${identity} … ${deployment}`,
          actual: system,
        },
      ];
    },
  },
  {
    id: 'deny-hides-its-tools-served',
    title: 'tools.deny alone (no allow list) hides the tools it names: the model is not offered them',
    yaml: [MODEL, 'tools:', '  deny: [issue_refund]'],
    served: async ({ host, requests }) => offeredTools(host, requests, '[issue_voucher, notify_customer]'),
  },
  {
    id: 'mode-denies-its-tools-served',
    title: 'the selected mode hides the tools its deny list matches: the model is not offered them',
    yaml: [MODEL, 'tools:', '  mode: read-only', '  modes:', '    read-only: {deny: ["issue_*"]}', '    full: {}'],
    served: async ({ host, requests }) => offeredTools(host, requests, '[notify_customer]'),
  },
  {
    id: 'mode-not-defined-refused',
    title: 'a tools.mode that is not one of tools.modes is refused naming those defined and the closest',
    yaml: [MODEL, 'tools:', '  mode: read-onyl', '  modes:', '    read-only: {deny: ["issue_*"]}'],
    refused: '{file}:3:9: tools.mode: "read-onyl" is not one of tools.modes (read-only); did you mean "read-only"?',
  },
  {
    id: 'tool-lists-naming-no-tool-refused',
    title: "a deny entry or a mode's list naming no registered tool is refused (a misspelled deny fails closed), each on its line with the closest name",
    yaml: [MODEL, 'tools:', '  deny: [issue_refnd]', '  modes:', '    read-only: {allow: [notify_customr]}'],
    refused: [
      'invalid config:',
      '{file}:3:10: tools.deny[0]: "issue_refnd" is not a registered tool (registered: issue_refund, issue_voucher, notify_customer); did you mean "issue_refund"?',
      '{file}:5:25: tools.modes.read-only.allow[0]: "notify_customr" is not a registered tool (registered: issue_refund, issue_voucher, notify_customer); did you mean "notify_customer"?',
    ].join('\n'),
  },
  {
    id: 'tool-ask-and-mode-deny-naming-no-tool-refused',
    title: "an ask entry or a mode's deny entry naming no registered tool is refused, each on its line under its own key",
    yaml: [MODEL, 'tools:', '  ask: [issue_refnd]', '  modes:', '    read-only: {deny: [issue_vouchr]}'],
    refused: [
      'invalid config:',
      '{file}:3:9: tools.ask[0]: "issue_refnd" is not a registered tool (registered: issue_refund, issue_voucher, notify_customer); did you mean "issue_refund"?',
      '{file}:5:24: tools.modes.read-only.deny[0]: "issue_vouchr" is not a registered tool (registered: issue_refund, issue_voucher, notify_customer); did you mean "issue_voucher"?',
    ].join('\n'),
  },
  {
    id: 'tool-allowed-and-denied-in-code-refused',
    title: 'a config built in code (no file to point into) that allows a tool it denies is refused naming both keys, with no line',
    yaml: [],
    code: { model: { provider: 'fake', name: 'support-model' }, store: { kind: 'memory' }, tools: { allow: ['issue_refund'], deny: ['issue_refund'] } },
    refused:
      'invalid config:\nconfig tools.allow[0]: issue_refund is also denied by tools.deny[0]: a deny is never lifted, so it is never offered; keep it in one list',
  },
  {
    id: 'config-file-missing-refused',
    title: 'a config path that names no file is refused as a config error naming the path',
    yaml: [MODEL],
    configPath: 'agnet.yaml',
    refused: '{folder}/agnet.yaml: cannot read the config file: no such file or directory (ENOENT)',
  },
  {
    id: 'several-problems-each-on-its-line',
    title: 'a config with several problems in its tool lists names each on its line, in one run',
    yaml: [MODEL, 'tools:', '  deny: [issue_refund, notify_customer]', '  ask: [issue_refund, notify_customer]'],
    refused: [
      'invalid config:',
      '{file}:4:9: tools.ask[0]: issue_refund is also denied by tools.deny[0] ({file}:3:10): a denied tool is never asked for; keep it in one list',
      '{file}:4:23: tools.ask[1]: notify_customer is also denied by tools.deny[1] ({file}:3:24): a denied tool is never asked for; keep it in one list',
    ].join('\n'),
  },
  {
    id: 'empty-file-refused',
    title: 'an empty config (only comments) is refused saying what a config names',
    yaml: ['# the host for the support agent', ''],
    refused:
      '{file}:1:1: the file holds no settings (it is empty, or only comments): a host config names at least its model (model: { provider: anthropic, name: … }), and usually its store and tools',
  },
  {
    id: 'model-key-variable-not-set-refused',
    checkHost: 'passes',
    title: 'a provider whose key variable is not set is refused naming the variable, before anything is opened',
    yaml: ['model: {provider: anthropic, name: claude-sonnet-4-5}', 'store: {kind: sqlite, path: data/support.db}'],
    env: {},
    ownClients: true,
    refused:
      'invalid config:\n{file}:1:19: model.provider: the environment variable ANTHROPIC_API_KEY is not set (it should hold the anthropic API key for model)',
  },
  {
    id: 'model-key-too-short-to-redact-refused',
    checkHost: 'passes',
    title:
      'a model key too short to be redacted (a placeholder for a local gateway) is refused at start, naming the variable, not "secrets[2]" at every message',
    yaml: ['model: {provider: openai-chat, name: gpt-5-mini, apiKeyEnv: GATEWAY_KEY}'],
    env: { GATEWAY_KEY: 'abc' }, // 3 characters: one short of what a redactor can hold (probe 32, N11: a check of < 2 passed 'x' alone)
    ownClients: true,
    refused:
      'invalid config:\n{file}:1:61: model.apiKeyEnv: the environment variable GATEWAY_KEY holds 3 characters: a key is redacted from everything the host writes, and one shorter than 4 characters cannot be (a gateway that takes any key: give it a placeholder of 4 or more, e.g. "none")',
  },
  {
    id: 'fallback-key-variable-not-set-refused',
    checkHost: 'passes',
    title: "a fallback whose apiKeyEnv is not set is refused naming the fallback's key, not the primary's",
    yaml: [
      'model:',
      '  provider: anthropic',
      '  name: claude-sonnet-4-5',
      '  fallback:',
      '    - {provider: openai-chat, name: gpt-5-mini, apiKeyEnv: SUPPORT_OPENAI_KEY}',
    ],
    env: { ANTHROPIC_API_KEY: 'sk-ant-test-key-5Lw2Vx8Kc3Hq9Zt7' },
    ownClients: true,
    refused:
      'invalid config:\n{file}:5:60: model.fallback[0].apiKeyEnv: the environment variable SUPPORT_OPENAI_KEY is not set (it should hold the openai-chat API key for model.fallback[0])',
  },
  {
    id: 'fake-provider-without-a-client-refused',
    checkHost: 'passes',
    title: 'provider "fake" with no model client given is refused: the config alone cannot build it',
    yaml: [MODEL],
    ownClients: true,
    refused:
      'invalid config:\n{file}:1:19: model.provider: provider "fake" cannot be built from the config alone: name a real provider (anthropic, openai-chat, openai-responses), or pass modelClient to build it',
  },
  {
    id: 'model-client-that-is-none-refused',
    checkHost: 'passes',
    title: "a model client the code gives that is none is refused with the host's own error, not another thrown while cleaning up",
    yaml: [MODEL, 'store: {kind: memory}'],
    notAClient: true,
    refused:
      'AgentSettingError: model: the model client has no name (a non-empty string, e.g. "anthropic:claude-sonnet-4-6", that the log records on every request)',
  },
  {
    id: 'model-address-with-credentials-refused',
    title: "a model's baseURL that carries a password is refused (config files get committed)",
    yaml: ['model: {provider: openai-chat, name: gpt-5-mini, baseURL: "https://user:hunter2-pw@gateway.example.com/v1"}'],
    refused:
      'invalid config:\n{file}:1:59: model.baseURL: must not carry credentials (config files get committed and shared): put the API key in an environment variable named by apiKeyEnv',
  },
  {
    id: 'model-address-not-http-refused',
    title: "a model's baseURL of another scheme is refused naming it",
    yaml: ['model: {provider: openai-chat, name: gpt-5-mini, baseURL: "ftp://gateway.example.com/v1"}'],
    refused: 'invalid config:\n{file}:1:59: model.baseURL: ftp: is not supported: the provider SDKs speak http:// or https:// only',
  },
  {
    id: 'store-path-a-folder-refused',
    title: 'a SQLite store.path that is a folder is refused, nothing created',
    yaml: [MODEL, 'store: {kind: sqlite, path: data}'],
    files: ['data/'],
    refused: '{file}:2:29: store.path: cannot write {folder}/data: it is a folder, not a file',
  },
  // A device, a FIFO or a link to nowhere passed the check, and the host failed on it, or hung on a FIFO (outside probe 64, F4).
  {
    id: 'store-path-a-device-refused',
    title: 'a SQLite store.path that is a device (a link to /dev/null) is refused, nothing created',
    yaml: [MODEL, 'store: {kind: sqlite, path: data.db}'],
    files: ['data.db -> /dev/null'],
    refused: '{file}:2:29: store.path: cannot write {folder}/data.db: it is not a regular file (a device, a FIFO or a socket)',
  },
  // Review of stop 65, MED-1: a store linked onto a volume before its first write is created through the link.
  {
    id: 'store-path-a-link-to-a-file-to-be-made-served',
    title: 'a SQLite store.path that links to a file not made yet, in a folder that exists, is served: the store is made there',
    yaml: [MODEL, 'store: {kind: sqlite, path: data.db}'],
    files: ['vol/', 'data.db -> vol/data.db'],
    served: async ({ host }) => {
      const got = await host.handle('linked-1', 'Hello');
      return [{ name: 'the message is answered', passed: got.status === 200, message: `${got.status}` }];
    },
  },
  {
    id: 'trace-file-under-a-link-to-nowhere-refused',
    title: 'a trace.export.jsonl under a link to a folder that does not exist is refused, nothing created',
    yaml: [MODEL, 'trace:', '  export:', '    jsonl: logs/traces.jsonl'],
    files: ['logs -> gone/logs'],
    refused: '{file}:4:12: trace.export.jsonl: cannot write {folder}/logs/traces.jsonl: {folder}/logs is a link to gone/logs, which does not exist',
  },
  {
    id: 'trace-file-under-a-file-refused',
    title: 'a trace.export.jsonl under a file is refused, nothing created',
    yaml: [MODEL, 'trace:', '  export:', '    jsonl: notes.txt/traces.jsonl'],
    files: ['notes.txt'],
    refused: '{file}:4:12: trace.export.jsonl: cannot write {folder}/notes.txt/traces.jsonl: {folder}/notes.txt is a file, not a folder',
  },
  {
    id: 'trace-file-the-store-file-refused',
    title: "a trace.export.jsonl naming the SQLite store's own file is refused, nothing created (SQLite's page writes would overwrite the traces)",
    yaml: [MODEL, 'store: {kind: sqlite, path: data/support.db}', 'trace:', '  export:', '    jsonl: ./data/../data/support.db'],
    refused:
      '{file}:5:12: trace.export.jsonl: {folder}/data/support.db is the file store.path names ({file}:2:29): the traces and the SQLite store cannot share one file; give the traces a file of their own',
  },
  {
    id: 'store-path-not-a-sqlite-file-refused',
    title: 'a SQLite store.path naming an existing file that is not a SQLite database is refused, the file untouched',
    yaml: [MODEL, 'store: {kind: sqlite, path: notes.txt}'],
    files: ['notes.txt'],
    refused:
      "{file}:2:29: store.path: {folder}/notes.txt is not a SQLite database (its first bytes are not SQLite's header): name a new file, or the store's own",
  },
  {
    id: 'trace-file-not-json-lines-refused',
    title: 'a trace.export.jsonl naming an existing file that does not hold JSON lines is refused, the file untouched (a scenario, a config)',
    yaml: [MODEL, 'trace:', '  export:', '    jsonl: notes.txt'],
    files: ['notes.txt'],
    refused:
      '{file}:4:12: trace.export.jsonl: {folder}/notes.txt does not hold JSON lines (its first line is not a JSON object): the host appends one JSON line per turn there; name a new file, or a trace file the host wrote',
  },
  {
    id: 'otlp-header-variable-not-set-refused',
    checkHost: 'passes',
    title: 'an OTLP header whose variable is not set is refused naming the header and the variable',
    yaml: [MODEL, 'trace:', '  export:', '    otlp:', '      endpoint: http://127.0.0.1:4318', '      headers: {authorization: SUPPORT_OTLP_TOKEN}'],
    env: {},
    refused:
      'invalid config:\n{file}:6:32: trace.export.otlp.headers.authorization: the environment variable SUPPORT_OTLP_TOKEN is not set (it should hold the value of the authorization header)',
  },
  {
    id: 'otlp-header-value-too-short-to-redact-refused',
    checkHost: 'passes',
    title: 'an OTLP header value too short to be redacted is refused at start, naming the header and the variable',
    yaml: [MODEL, 'trace:', '  export:', '    otlp:', '      endpoint: http://127.0.0.1:4318', '      headers: {authorization: SUPPORT_OTLP_TOKEN}'],
    env: { SUPPORT_OTLP_TOKEN: 'ab' },
    refused:
      'invalid config:\n{file}:6:32: trace.export.otlp.headers.authorization: the environment variable SUPPORT_OTLP_TOKEN holds 2 characters: a header value is redacted from everything the host writes, and one shorter than 4 characters cannot be',
  },
  {
    id: 'otlp-header-variable-with-a-line-break-refused',
    checkHost: 'passes',
    title: 'an OTLP header whose variable holds a line break is refused, the value not shown',
    yaml: [MODEL, 'trace:', '  export:', '    otlp:', '      endpoint: http://127.0.0.1:4318', '      headers: {authorization: SUPPORT_OTLP_TOKEN}'],
    env: { SUPPORT_OTLP_TOKEN: `${OTLP_TOKEN}\nX-Injected: 1` },
    refused:
      'invalid config:\n{file}:6:32: trace.export.otlp.headers.authorization: the environment variable SUPPORT_OTLP_TOKEN holds a value that cannot be sent as a header (a line break or control character)',
  },
  {
    id: 'otlp-endpoint-with-credentials-refused',
    title: 'an OTLP endpoint that carries a password is refused',
    yaml: [MODEL, 'trace:', '  export:', '    otlp: {endpoint: "http://otel:s3cret-pw@127.0.0.1:4318"}'],
    refused:
      'invalid config:\n{file}:4:22: trace.export.otlp.endpoint: must not carry credentials (config files get committed and shared): send them as a header whose value comes from an environment variable (headers)',
  },
  {
    id: 'otlp-endpoint-with-a-key-in-its-query-refused',
    title: "an OTLP endpoint that carries a key in its query string is refused, as a model's address is",
    yaml: [MODEL, 'trace:', '  export:', '    otlp: {endpoint: "http://127.0.0.1:4318/v1/traces?api_key=abc123secret"}'],
    refused:
      'invalid config:\n{file}:4:22: trace.export.otlp.endpoint: must not carry credentials (config files get committed and shared): send them as a header whose value comes from an environment variable (headers)',
  },
  {
    id: 'trace-file-kept-while-the-collector-is-down',
    title: 'with a trace file and a collector that is down, each turn is answered and its trace still reaches the file',
    yaml: [MODEL, 'trace:', '  export:', '    jsonl: traces/support.jsonl', '    otlp: {endpoint: "{down}", timeoutMs: 500}'],
    served: async ({ host, folder }) => {
      const got = [await host.handle('orders-1', 'Where is ORD-1001?'), await host.handle('orders-2', 'Where is ORD-1002?')];
      await host.close();
      const lines = linesOf(join(folder, 'traces', 'support.jsonl'));
      return [
        answeredOk('both messages are answered', got),
        {
          name: 'the trace file holds one line per turn',
          passed: lines.length === 2,
          message: `${lines.length} line(s)`,
          expected: '2',
          actual: String(lines.length),
        },
      ];
    },
  },
  {
    id: 'trace-file-appended-across-a-restart-served',
    title:
      'a host restarted on the trace file it wrote appends to it, on a line of its own even where the last line has no line break: the file is JSON lines, one per turn of each life',
    yaml: [MODEL, 'trace:', '  export:', '    jsonl: traces/support.jsonl'],
    served: async ({ host, folder }) => {
      const first = await host.handle('orders-1', 'Where is ORD-1001?');
      await host.close();
      // The file as another tool may leave it: its last line without a line break (outside probe 30, NEW-A: the next
      // host appended onto that line, and refused its own trace file from then on).
      const file = join(folder, 'traces', 'support.jsonl');
      if (existsSync(file)) writeFileSync(file, readFileSync(file, 'utf8').replace(/\n$/, ''));
      let again: AgentHost | undefined;
      let second: ResponseEnvelope | string;
      try {
        again = await createHostFromConfig(join(folder, 'agent.yaml'), {
          agent: AGENT,
          env: {},
          modelClient: () => new ScriptedModelClient([reply('ORD-1002 shipped.')]),
        });
        second = await again.handle('orders-2', 'Where is ORD-1002?');
      } catch (error) {
        second = error instanceof Error ? error.message : String(error);
      } finally {
        await again?.close();
      }
      const lines = linesOf(join(folder, 'traces', 'support.jsonl'));
      return [
        typeof second === 'string'
          ? { name: 'the restarted host is served', passed: false, message: second }
          : answeredOk('both lives answer', [first, second]),
        {
          name: 'the file holds one JSON line per turn of both lives',
          passed: lines.length === 2 && lines.every((line) => jsonObject(line)),
          message: `${lines.length} line(s)`,
          expected: '2',
          actual: String(lines.length),
        },
      ];
    },
  },
  {
    id: 'tool-traceparent-keeps-the-callers-sampling-served',
    title:
      "with an OTLP collector, a tool gets a traceparent in the caller's trace naming its own span, with the caller's sampling decision: not sampled stays not sampled",
    yaml: [MODEL, 'trace:', '  export:', '    otlp: {endpoint: "{collector}"}'],
    collector: true,
    agent: {
      system: 'You help customers with their orders.',
      tools: [
        defineTool({
          name: 'notify_customer',
          description: 'Email the customer.',
          input: noArgs,
          sideEffect: 'NONE',
          run: (_args, ctx) => {
            seenTraceparents.push(ctx.traceparent ?? '(none)');
            return 'emailed';
          },
        }),
      ],
    },
    script: () => [
      toolUse([call('n1', 'notify_customer', { orderId: 'ORD-1001' })]),
      reply('Done.'),
      toolUse([call('n2', 'notify_customer', { orderId: 'ORD-1002' })]),
      reply('Done.'),
    ],
    served: async ({ host }) => {
      // Outside probe 29, plant TP1: a tool's traceparent always flagged sampled (01) passed every gate.
      seenTraceparents.length = 0;
      const got = [
        await host.handle('orders-1', 'Email me about ORD-1001.', { traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-00` }),
        await host.handle('orders-2', 'Email me about ORD-1002.', { traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` }),
      ];
      const shapes = seenTraceparents.map((t) =>
        t.replace(/^00-([0-9a-f]{32})-[0-9a-f]{16}-(0[01])$/, (_m, trace: string, flags: string) => `${trace === CALLER_TRACE ? 'caller' : 'other'}:${flags}`),
      );
      const want = 'caller:00 caller:01';
      return [
        answeredOk('both messages are answered', got),
        sameAs(
          "each tool's traceparent is in the caller's trace with the caller's sampling flag",
          shapes.join(' '),
          want,
          seenTraceparents.join(' ') || 'no tool ran',
        ),
      ];
    },
  },
  {
    id: 'collector-kept-while-the-trace-file-fails-served',
    title:
      'with a trace file and a collector, a trace file that can no longer be written (its path now a folder) fails no turn, and the collector still gets each turn',
    yaml: [MODEL, 'trace:', '  export:', '    jsonl: traces/support.jsonl', '    otlp: {endpoint: "{collector}"}'],
    collector: true,
    served: async ({ host, folder, received }) => {
      // Outside probe 30, plant N4: a fan-out that stopped at the first exporter that threw lost every span to the
      // collector whenever the trace file could not be written (a full disk, a read-only volume) - and passed.
      mkdirSync(join(folder, 'traces', 'support.jsonl'), { recursive: true });
      const got = [await host.handle('orders-1', 'Where is ORD-1001?'), await host.handle('orders-2', 'Where is ORD-1002?')];
      await host.close();
      const spans = received().reduce((n, r) => n + (r.body.match(/"name":"invoke_agent/g)?.length ?? 0), 0);
      return [
        answeredOk('both messages are answered', got),
        {
          name: 'the collector gets one agent span per turn',
          passed: spans === 2,
          message: `${spans} invoke_agent span(s)`,
          expected: '2',
          actual: String(spans),
        },
      ];
    },
  },
  {
    id: 'trace-file-holds-each-turns-whole-trace-served',
    title: "a trace.export.jsonl line is the turn's whole trace: its turn, model calls, tool and policy spans, as the turn recorded them",
    yaml: [MODEL, 'trace:', '  export:', '    jsonl: traces/support.jsonl'],
    script: () => [toolUse([call('n1', 'notify_customer', { orderId: 'ORD-1001' })]), reply('Emailed.')],
    served: async ({ host, folder }) => {
      // Outside probe 29, plant J1: an exporter that dropped the tool spans from each line passed every gate.
      const got = await host.handle('orders-1', 'Email me about ORD-1001.');
      await host.close();
      const kinds = linesOf(join(folder, 'traces', 'support.jsonl')).map((line) =>
        (JSON.parse(line) as { spans: { kind: string }[] }).spans.map((span) => span.kind).join(','),
      );
      const want = 'turn,model_call,tool,policy,model_call';
      return [
        answeredOk('the message is answered', [got]),
        sameAs('the line holds every span of the turn', kinds.join(' | '), want, kinds.join(' | ') || 'no line'),
      ];
    },
  },
  {
    id: 'otlp-collector-gets-each-turn-with-its-header',
    title:
      "served with an OTLP collector: an endpoint without a path is sent to /v1/traces, with the header's value read from its variable, once per turn, the value never in what is sent",
    yaml: [
      MODEL,
      'trace:',
      '  export:',
      '    otlp:',
      '      endpoint: "{collector}"',
      '      serviceName: support-agent',
      '      headers: {authorization: SUPPORT_OTLP_TOKEN}',
    ],
    env: { SUPPORT_OTLP_TOKEN: OTLP_TOKEN },
    collector: true,
    served: async ({ host, received }) => {
      const got = [
        await host.handle('orders-1', 'Where is ORD-1001?'),
        await host.handle('orders-2', 'Where is ORD-1002?', { traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` }),
      ];
      await host.close();
      const requests = received();
      const bodies = requests.map((r) => r.body).join('\n');
      // The second turn's agent span: in the caller's trace, its parent the caller's span.
      const inCallersTrace = bodies.includes(`"traceId":"${CALLER_TRACE}"`) && bodies.includes(`"parentSpanId":"${CALLER_SPAN}"`);
      const spans = requests.flatMap((r) => [...r.body.matchAll(/"name":"invoke_agent/g)]).length;
      return [
        answeredOk('both messages are answered', got),
        {
          name: 'sent to the collector at /v1/traces',
          passed: requests.length > 0 && requests.every((r) => r.path === '/v1/traces'),
          message: `${requests.length} request(s): ${requests.map((r) => r.path).join(', ') || 'none'}`,
        },
        {
          name: "each request carries the header's value from its variable",
          passed: requests.length > 0 && requests.every((r) => r.headers.authorization === OTLP_TOKEN),
          message: requests
            .map((r) =>
              r.headers.authorization === OTLP_TOKEN ? 'the value' : `authorization ${r.headers.authorization === undefined ? 'missing' : 'another value'}`,
            )
            .join(', '),
        },
        {
          name: "one agent span per turn, under the config's service name",
          passed: spans === 2 && requests.some((r) => r.body.includes('"stringValue":"support-agent"')),
          message: `${spans} invoke_agent span(s); service name ${requests.some((r) => r.body.includes('"stringValue":"support-agent"')) ? 'sent' : 'not sent'}`,
          expected: '2',
          actual: String(spans),
        },
        {
          name: "a turn whose request carried a traceparent is sent in the caller's trace, under the caller's span",
          passed: inCallersTrace,
          message: inCallersTrace ? 'sent with its trace id and parent span id' : `no span with trace id ${CALLER_TRACE} and parent ${CALLER_SPAN}`,
        },
        {
          name: "the header's value is never in what is sent",
          passed: requests.every((r) => !r.body.includes(OTLP_TOKEN) && !r.body.includes(OTLP_TOKEN.slice(7))),
          message: requests.some((r) => r.body.includes(OTLP_TOKEN.slice(7))) ? 'a body holds the value' : 'no body holds it',
        },
      ];
    },
  },
];

/** A model asking for two refunds in one step, then replying. */
function twoRefunds(): ModelResult[] {
  return [toolUse([call('r1', 'issue_refund', { orderId: 'ORD-1' }), call('r2', 'issue_refund', { orderId: 'ORD-2' })]), reply('Refunded.')];
}

/** One message asking for two refunds, under an agent allowing one tool call a turn: stopped before any runs. */
async function stoppedAtTheAgentsBudget({ host }: Served): Promise<CheckResult[]> {
  const got = await host.handle('orders-1', 'Refund ORD-1 and ORD-2.');
  const said = `${got.status} ${got.turns.map((t) => `${t.outcome} ${t.toolCalls} call(s)`).join(', ')}`;
  const want = '422 failed{budget_exhausted} 0 call(s)';
  return [{ name: "the turn is stopped at the agent's own budget", passed: said === want, message: said, expected: want, actual: said }];
}

/** A check that `actual` is `expected`, shown with `message` (default: `actual`). */
function sameAs(name: string, actual: string, expected: string, message = actual): CheckResult {
  return { name, passed: actual === expected, message, expected, actual };
}

/** Whether every answer is 200, each shown with its text. */
function answeredOk(name: string, answers: readonly ResponseEnvelope[]): CheckResult {
  return { name, passed: answers.every((a) => a.status === 200), message: answers.map((a) => `${a.status} ${a.error ?? a.reply ?? ''}`).join('; ') };
}

/** One message, and the tools the model was offered for it: exactly `want` (`[a, b]`). */
async function offeredTools(host: AgentHost, requests: () => readonly ModelRequest[], want: string): Promise<CheckResult[]> {
  const got = await host.handle('orders-1', 'Refund ORD-1001, please.');
  const offered = requests()
    .map((request) => `[${request.tools.map((tool) => tool.name).join(', ')}]`)
    .join(' ');
  return [
    answeredOk('a message is answered', [got]),
    {
      name: 'only the tools the lists let through are offered',
      passed: offered === want,
      message: offered || 'no request sent',
      expected: want,
      actual: offered,
    },
  ];
}

/** A collector on loopback that answers every export 200 and keeps what it was sent. */
async function startCollector(): Promise<{ address: string; requests: CollectorRequest[]; close: () => Promise<void> }> {
  const requests: CollectorRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { address: `http://127.0.0.1:${port}`, requests, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** The address of a port on loopback that nothing listens on (a collector that is down): one just closed. */
async function closedAddress(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

/** Whether `line` is one JSON object. */
function jsonObject(line: string): boolean {
  try {
    const value: unknown = JSON.parse(line);
    return value !== null && typeof value === 'object' && !Array.isArray(value);
  } catch {
    return false;
  }
}

/** The non-empty lines of the file at `path` (none if it is missing). */
function linesOf(path: string): string[] {
  return existsSync(path)
    ? readFileSync(path, 'utf8')
        .split('\n')
        .filter((line) => line !== '')
    : [];
}

/** The files under `folder` this process holds open (Linux's /proc/self/fd); undefined where that cannot be listed. */
function openFilesUnder(folder: string): string[] | undefined {
  const fds = '/proc/self/fd';
  if (!existsSync(fds)) return undefined;
  const open: string[] = [];
  for (const fd of readdirSync(fds)) {
    try {
      const target = readlinkSync(join(fds, fd));
      if (target.startsWith(`${folder}/`)) open.push(target.slice(folder.length + 1));
    } catch {
      // closed while listed
    }
  }
  return open.sort();
}

/** Every path under `folder`, folders ending in `/`, sorted. */
function listing(folder: string, under = ''): string[] {
  return readdirSync(join(folder, under), { withFileTypes: true })
    .flatMap((entry) => {
      const path = `${under}${entry.name}`;
      return entry.isDirectory() ? [`${path}/`, ...listing(folder, `${path}/`)] : [path];
    })
    .sort();
}

/** What `loopgate check-host` says of the file: `passes`, or its refusal's message (the "invalid config:" heading dropped, as the command drops it). */
function checkHostAnswer(config: string | HostConfig, row: Row): string {
  try {
    checkHostConfig(config, { agent: row.agent ?? AGENT });
    return 'passes';
  } catch (error) {
    return error instanceof ConfigError ? error.message : `${(error as Error)?.name}: ${(error as Error)?.message}`;
  }
}

async function runRow(row: Row): Promise<CheckResult[]> {
  const folder = mkdtempSync(join(tmpdir(), 'loopgate-host-config-'));
  const collector = row.collector ? await startCollector() : undefined;
  try {
    for (const path of row.files ?? []) {
      const [name, target] = path.split(' -> ');
      if (target !== undefined) symlinkSync(target, join(folder, name!));
      else if (path.endsWith('/')) mkdirSync(join(folder, path), { recursive: true });
      else writeFileSync(join(folder, path), 'a file of the user\n');
    }
    const file = join(folder, 'agent.yaml');
    const yaml = row.yaml.join('\n').replaceAll('{collector}', collector?.address ?? '');
    writeFileSync(file, `${yaml.includes('{down}') ? yaml.replaceAll('{down}', await closedAddress()) : yaml}\n`);
    const before = listing(folder);
    const config = row.code !== undefined ? checkedHostConfig(row.code) : row.configPath !== undefined ? join(folder, row.configPath) : file;
    const clients: ScriptedModelClient[] = [];
    const clock = row.virtualTime ? new VirtualClock() : undefined;
    const modelClient = row.ownClients
      ? undefined
      : row.notAClient
        ? () => ({}) as ModelClient
        : (): ModelClient => {
            const client = new ScriptedModelClient(row.script?.() ?? [reply('ORD-1001 ships today.'), reply('ORD-1002 shipped.')]);
            clients.push(client);
            return client;
          };
    let host: AgentHost | undefined;
    let error: unknown;
    try {
      host = await createHostFromConfig(config, {
        agent: row.agent ?? AGENT,
        env: row.env ?? {},
        ...(modelClient ? { modelClient } : {}),
        ...(clock ? { clock } : {}),
      });
    } catch (caught) {
      error = caught;
    }
    const checkHostSays = checkHostAnswer(config, row);
    if (row.refused !== undefined) {
      await host?.close();
      const want = row.refused.replaceAll('{file}', file).replaceAll('{folder}', folder);
      const checkHostWants = row.checkHost === 'passes' ? 'passes' : want;
      const got =
        error instanceof ConfigError ? error.message : error === undefined ? 'served (no error)' : `${(error as Error)?.name}: ${(error as Error)?.message}`;
      const after = listing(folder);
      return [
        { name: 'refused with its message', passed: got === want, message: got, expected: want, actual: got },
        {
          name: row.checkHost === 'passes' ? 'check-host passes it (it opens nothing, reads no key)' : 'check-host refuses it alike',
          passed: checkHostSays === checkHostWants,
          message: checkHostSays,
          expected: checkHostWants,
          actual: checkHostSays,
        },
        {
          name: 'nothing written',
          passed: after.join(',') === before.join(','),
          message: after.filter((p) => !before.includes(p)).join(', ') || 'the folder is as it was',
          expected: before.join(', '),
          actual: after.join(', '),
        },
      ];
    }
    if (host === undefined) {
      const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      return [{ name: 'served', passed: false, message, expected: 'a host', actual: message }];
    }
    try {
      const requests = () => clients.flatMap((client) => client.requests);
      const checkHostWants = typeof row.checkHost === 'object' ? row.checkHost.refuses.replaceAll('{file}', file) : 'passes';
      const checked: CheckResult = {
        name: checkHostWants === 'passes' ? 'check-host passes what the host serves' : 'check-host refuses it with its message, though the host serves it',
        passed: checkHostSays === checkHostWants,
        message: checkHostSays,
        expected: checkHostWants,
        actual: checkHostSays,
      };
      return [checked, ...(await row.served!({ host, folder, requests, received: () => collector?.requests ?? [], ...(clock ? { clock } : {}) }))];
    } finally {
      await host.close();
    }
  } finally {
    await collector?.close();
    rmSync(folder, { recursive: true, force: true });
  }
}

export function hostConfigCases(): Case[] {
  return ROWS.map((row) =>
    checksCase({ id: `contract:host-config/${row.id}`, title: `host config: ${row.title}`, file: FILE, secrets: [OTLP_TOKEN] }, () => runRow(row)),
  );
}
