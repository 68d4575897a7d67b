/**
 * The ids the model gave its calls, read from what the provider returned (not
 * from the loop's records), and which calls are the same call repeated: a call
 * whose id — as the model sent it — was given to an earlier call (of an earlier
 * step, or before it in its own) of the same tool with the same arguments repeats it (the loop renames it, `refund`
 * → `refund_2`, for the protocol). The same id with other arguments is a new call
 * (servers that number calls per response reuse ids), and a later call given that
 * id with *its* tool and arguments repeats it: the rule compares the calls of
 * earlier steps logged under the id and under each rename of it (`x`, `x_2`,
 * `x_3`, … while there is one) — not only the first (outside probe 48, HIGH-1),
 * and a renamed id the model copies from its history (`x_2`) names that call
 * (review of stop 55, H1). An id the model chose itself that reads as a rename is
 * taken for one. Within one step the same holds: a call sent twice in one answer
 * (the same id, tool and arguments — a duplicated stream event; providers give
 * each call of an answer its own id) is one call repeated; two calls sharing an
 * id with other arguments are two calls.
 */
import { canonicalJson, type LogEvent } from '../../../kernel/index.ts';
import { redactorOf } from '../../run-redactor.ts';
import type { ScenarioRun } from '../../second-host.ts';
import { viewOf } from './log-view.ts';

/** For each call id in the log, the id of the first call of its chain of repeats (itself when it repeats nothing). */
export function repeatChains(run: ScenarioRun): ReadonlyMap<string, string> {
  const view = viewOf(run);
  const redact = redactorOf(run);
  const toolUse = new Map<string, number>(); // turn/step → the request index whose tool_use the step acted on
  for (const r of view.requests) if (r.result?.payload.result.type === 'tool_use') toolUse.set(`${r.event.payload.turn}/${r.event.payload.step}`, r.index);
  const root = new Map<string, string>();
  const name = new Map<string, string>();
  const args = new Map<string, string>(); // call id (as logged) → the arguments the provider returned, canonical
  for (const e of view.known) {
    if (e.type !== 'assistant.message') continue;
    const index = toolUse.get(`${e.payload.turn}/${e.payload.step}`);
    const returned = index === undefined ? undefined : run.responses[index]?.result;
    const given = returned?.type === 'tool_use' ? returned.calls : [];
    const blocks = e.payload.content.filter((b): b is Extract<(typeof e.payload.content)[number], { type: 'tool_call' }> => b.type === 'tool_call');
    // Calls of earlier steps and those before it in this one: an answer that sends one call twice (its id, tool and
    // arguments) sent one call (outside probe 52, MED-3); the same id with other arguments is another call.
    const earlier = root;
    blocks.forEach((b, i) => {
      const raw = given[i]?.id ? redact(given[i]!.id) : '';
      const sent = canonicalJson(given[i]?.args ?? {});
      let repeated: string | undefined;
      for (let n = 1; raw !== '' && repeated === undefined; n++) {
        const id = n === 1 ? raw : `${raw}_${n}`;
        if (!earlier.has(id)) break;
        if (name.get(id) === b.name && args.get(id) === sent) repeated = id;
      }
      root.set(b.id, repeated !== undefined ? root.get(repeated)! : b.id);
      name.set(b.id, b.name);
      args.set(b.id, sent);
    });
  }
  return root;
}

export type Started = Extract<LogEvent, { type: 'tool.started' }>;
