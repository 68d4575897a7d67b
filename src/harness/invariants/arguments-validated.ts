/**
 * A tool only runs with arguments its declaration accepts (seed 000 §5: lenient
 * parse, then strict validation): the arguments every `tool.started` records are
 * valid against the input schema the model was offered for that tool (the JSON
 * Schema in the `tools.declared` in force). Checked with a JSON Schema validator
 * of its own (Ajv), not the pipeline's zod: a validation step that is skipped or
 * lets a field through fails here.
 *
 * And each run of a scripted tool's body got those arguments frozen all the way
 * down (seed 000 §5: the pipeline, the log and a retry read the same object, so a
 * tool that changes its arguments must be refused, not change what they see).
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import type { LogEvent } from '../../kernel/index.ts';
import type { ScenarioRun } from '../second-host.ts';
import { defineInvariant, loopgateOnly } from './invariant.ts';
import { viewOf } from './support/log-view.ts';

const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: false, logger: false });
const compiled = new Map<string, ValidateFunction | undefined>();
/** By the (frozen) schema object a log holds, so a run does not serialize it for every call. */
const byObject = new WeakMap<object, ValidateFunction | undefined>();

export function validatorOf(schema: unknown): ValidateFunction | undefined {
  if (schema === null || typeof schema !== 'object') return undefined;
  if (byObject.has(schema)) return byObject.get(schema);
  const key = JSON.stringify(schema);
  if (!compiled.has(key)) {
    try {
      compiled.set(key, ajv.compile(schema));
    } catch {
      compiled.set(key, undefined); // a schema Ajv cannot read is not this check's to judge
    }
  }
  const validate = compiled.get(key);
  byObject.set(schema, validate);
  return validate;
}

export const argumentsValidated = defineInvariant({
  id: 'arguments-validated',
  title: 'a tool only starts with arguments valid against the input schema the model was offered, and gets them frozen',
  appliesTo: loopgateOnly('started calls and declared schemas are in loopgate’s event log'),
  check: (run) => startedWithValidArguments(run) ?? givenFrozenArguments(run),
});

function givenFrozenArguments(run: ScenarioRun): string | undefined {
  for (const [callId, bodies] of run.toolBodies ?? []) {
    const i = bodies.findIndex((b) => b.unfrozenArgs !== undefined);
    if (i >= 0) return `call ${callId}: run ${i + 1} of its tool's body got arguments it could change: ${bodies[i]!.unfrozenArgs} is not frozen`;
  }
  return undefined;
}

function startedWithValidArguments(run: ScenarioRun): string | undefined {
  let declared = new Map<string, unknown>();
  for (const e of viewOf(run).known) {
    if (e.type === 'tools.declared') {
      declared = new Map((e as Extract<LogEvent, { type: 'tools.declared' }>).payload.tools.map((t) => [t.name, t.inputSchema]));
      continue;
    }
    if (e.type !== 'tool.started') continue;
    const { name, args, callId } = e.payload;
    const schema = declared.get(name);
    if (schema === undefined) continue; // offered nowhere: invariant 7 and the pipeline's not-available answer cover it
    const validate = validatorOf(schema);
    if (!validate || validate(args)) continue;
    const error = validate.errors?.[0];
    return `call ${callId} to ${name} started (seq ${e.seq}) with arguments its schema refuses: ${error?.instancePath || '(the arguments)'} ${error?.message ?? 'is invalid'} — ${JSON.stringify(args).slice(0, 200)}`;
  }
  return undefined;
}
