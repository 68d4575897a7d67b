/**
 * A team's own prompt assembler, changed between turns, as a case of
 * `loopgate run`: `contract:prompt/<id>`.
 *
 * `PromptAssembler` is exported and `loopDeps({ prompt })` takes one: a team
 * registers a fragment for a while (an incident notice, a campaign) and removes
 * it with the handle `register` returned. The loop builds its prompt from the
 * agent and never unregisters, so no scenario reaches the handle. What the model
 * receives is checked here: the fragment is in the system prompt while
 * registered and gone once unregistered — also after the assembler cached its
 * all-static prompt — and a stale handle (the id registered again since) removes
 * nothing.
 */
import { reply } from '../../providers/fake/results.ts';
import { ScriptedModelClient } from '../../providers/fake/scripted.ts';
import { AgentLoop, EventLog, loopDeps, PromptAssembler } from '../kernel/index.ts';
import type { CheckResult } from '../report/results.ts';
import { checksCase, type Case } from './cases.ts';
import { VirtualClock } from './virtual-clock.ts';

const FILE = 'src/harness/prompt-assembler-cases.ts';
const NOTICE = 'Deliveries to the north are delayed by the storm.';
const NOTICE_AGAIN = 'Deliveries to the north run again.';

async function fragmentComesAndGoes(): Promise<CheckResult[]> {
  const clock = new VirtualClock();
  const prompt = new PromptAssembler();
  prompt.register({ id: 'identity', priority: -100, text: 'You help customers with their orders.' });
  const model = new ScriptedModelClient([reply('One.'), reply('Two.'), reply('Three.'), reply('Four.')], { clock });
  const loop = new AgentLoop(loopDeps({ log: new EventLog(clock), model, prompt }));
  const turn = async (text: string) => {
    loop.send(text, { id: text });
    await loop.drain();
    return model.requests.at(-1)?.system ?? '(no request)';
  };
  const first = await turn('Where is my parcel?');
  const unregister = prompt.register({ id: 'incident', priority: 0, text: NOTICE });
  const order = prompt.ids().join(', ');
  const second = await turn('And my other parcel?');
  unregister();
  const third = await turn('Any news?');
  // The id registered again: the first handle is stale and must remove nothing.
  prompt.register({ id: 'incident', priority: 0, text: NOTICE_AGAIN });
  unregister();
  const fourth = await turn('And now?');
  const row = (name: string, passed: boolean, actual: string, expected: string): CheckResult => ({ name, passed, message: actual, expected, actual });
  return [
    row('turn 1: no notice', !first.includes(NOTICE), first, 'identity only'),
    row('ids() in assembly order', order === 'identity, incident', order, 'identity, incident'),
    row('turn 2: the notice, after the identity', second === `You help customers with their orders.\n\n${NOTICE}`, second, `identity, then ${NOTICE}`),
    row('turn 3: unregistered, the notice is gone', third === 'You help customers with their orders.', third, 'identity only'),
    row('turn 4: the stale handle removed nothing', fourth.includes(NOTICE_AGAIN), fourth, `identity, then ${NOTICE_AGAIN}`),
  ];
}

/**
 * `assemble()` as its doc says: while every fragment is static text, the same frozen object each time (a caller may
 * compare it by identity to know nothing changed; no text is joined again); a fragment whose text is a function
 * is asked at each assembly, so the prompt follows it (mutation seed 37, assembler.ts: a prompt assembled afresh
 * every time passed every case).
 */
function staticPromptIsTheSameObject(): CheckResult[] {
  const prompt = new PromptAssembler();
  prompt.register({ id: 'identity', priority: -100, text: 'You help customers with their orders.' });
  prompt.register({ id: 'tone', priority: 0, text: 'Answer in two sentences at most.' });
  const first = prompt.assemble();
  const same = first === prompt.assemble() && Object.isFrozen(first);
  let asked = 0;
  prompt.register({ id: 'queue', priority: 10, text: () => `Open tickets: ${++asked}.` });
  const a = prompt.assemble().system;
  const b = prompt.assemble().system;
  const row = (name: string, passed: boolean, actual: string, expected: string): CheckResult => ({ name, passed, message: actual, expected, actual });
  return [
    row('all static: the same frozen object twice', same, String(same), 'true'),
    row('a function fragment is asked at each assembly', a.endsWith('Open tickets: 1.') && b.endsWith('Open tickets: 2.'), `${a} | ${b}`, 'tickets 1, then 2'),
  ];
}

/**
 * A dynamic fragment that gives no text (a team's function returning `null`, a number, nothing) is left out of the
 * prompt, and the loop records why, naming what it returned: the `prompt.assembled` event's errors are what a reader
 * of the log has to find out why the notice never reached the model (mutation seed 40, assembler.ts: `text === null`
 * made true, false or `!==` named a number "null" or null "object"; no case reached a fragment without text).
 */
async function fragmentWithoutTextNamesWhatItReturned(): Promise<CheckResult[]> {
  const clock = new VirtualClock();
  const prompt = new PromptAssembler();
  prompt.register({ id: 'identity', priority: -100, text: 'You help customers with their orders.' });
  prompt.register({ id: 'incident', priority: 0, text: (() => null) as never });
  prompt.register({ id: 'queue', priority: 10, text: (() => 7) as never });
  prompt.register({ id: 'campaign', priority: 20, text: (() => undefined) as never });
  const model = new ScriptedModelClient([reply('One.')], { clock });
  const log = new EventLog(clock);
  const loop = new AgentLoop(loopDeps({ log, model, prompt }));
  loop.send('Where is my parcel?', { id: 'ask' });
  await loop.drain();
  const system = model.requests.at(-1)?.system ?? '(no request)';
  const assembled = log.events.filter((e) => e.type === 'prompt.assembled');
  const errors = JSON.stringify(assembled.map((e) => (e.payload as { errors?: unknown }).errors));
  const wanted = JSON.stringify([
    [
      { id: 'incident', message: 'dynamic fragment returned null, not text' },
      { id: 'queue', message: 'dynamic fragment returned number, not text' },
      { id: 'campaign', message: 'dynamic fragment returned undefined, not text' },
    ],
  ]);
  const row = (name: string, passed: boolean, actual: string, expected: string): CheckResult => ({ name, passed, message: actual, expected, actual });
  return [
    row('the model read the identity only', system === 'You help customers with their orders.', system, 'identity only'),
    row('prompt.assembled names each fragment and what it returned', errors === wanted, errors, wanted),
  ];
}

export function promptAssemblerCases(): Case[] {
  return [
    checksCase(
      {
        id: 'contract:prompt/fragment-unregistered-between-turns',
        title: "prompt: a team's fragment registered for a while reaches the model only while registered; a stale handle removes nothing",
        file: FILE,
      },
      fragmentComesAndGoes,
    ),
    checksCase(
      {
        id: 'contract:prompt/static-prompt-is-the-same-object',
        title: 'prompt: assemble() gives the same frozen object while every fragment is static, and asks a function fragment at each assembly',
        file: FILE,
      },
      staticPromptIsTheSameObject,
    ),
    checksCase(
      {
        id: 'contract:prompt/fragment-without-text-named-in-the-log',
        title: 'prompt: a dynamic fragment returning null, a number or nothing is left out, and the log names what it returned',
        file: FILE,
      },
      fragmentWithoutTextNamesWhatItReturned,
    ),
  ];
}
