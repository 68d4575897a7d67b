/**
 * The failures the pipeline itself reports, each as the structured error the model
 * reads (seed 001 §3.4): what failed, a code, what happened, what to do next.
 * Wording matters here: a denied call says it did not run; an interrupted or
 * timed-out call says it may have run — never the other way round.
 */
import type { SideEffect, ToolError } from './types.ts';

export const ERROR_CODES = [
  'TOOL_NOT_AVAILABLE',
  'INVALID_ARGUMENTS',
  'DENIED',
  'CANCELLED',
  'ALREADY_STARTED',
  'NOT_RECORDED',
  'TIMEOUT',
  'INTERRUPTED',
  'TOOL_ERROR',
  'INVALID_OUTPUT',
  'INTERNAL_ERROR',
] as const;
export type PipelineErrorCode = (typeof ERROR_CODES)[number];

const MAY_HAVE_RUN = 'Do not retry blindly: first check whether it took effect (for example by reading the state back), then decide.';

/** A tool's side-effect level as the model is told it; a tool no longer declared counts as the most careful. */
function sideEffectOf(tool: string, sideEffect: SideEffect | undefined): string {
  return sideEffect === undefined ? `${tool} is no longer declared (its side effects unknown, so taken as STATEFUL)` : `${tool} is ${sideEffect}`;
}

function error(tool: string, code: PipelineErrorCode, message: string, suggestion: string): ToolError {
  return { failed_tool: tool, error_code: code, error_message: message, suggestion };
}

export const toolErrors = {
  notAvailable(tool: string, available: readonly string[]): ToolError {
    return error(
      tool,
      'TOOL_NOT_AVAILABLE',
      `Tool "${tool}" is not available here. It did not run.`,
      available.length > 0 ? `Use one of the available tools: ${available.join(', ')}.` : 'No tools are available; answer without tools.',
    );
  },
  unparseable(tool: string, reason: string, raw: string): ToolError {
    const shown = raw.length > 200 ? `${raw.slice(0, 200)}…` : raw;
    return error(
      tool,
      'INVALID_ARGUMENTS',
      `Invalid arguments for ${tool}: the arguments are not a JSON object (${reason}). Received: ${shown}`,
      `Call ${tool} again with its arguments as one complete JSON object.`,
    );
  },
  tooDeep(tool: string, limit: number): ToolError {
    return error(
      tool,
      'INVALID_ARGUMENTS',
      `Invalid arguments for ${tool}: they nest objects or arrays deeper than ${limit} levels, the limit for tool arguments. It did not run.`,
      `Call ${tool} again with flatter arguments (at most ${limit} levels of nesting) that match its input schema.`,
    );
  },
  repeated(tool: string, callId: string, repeatOf: string, sideEffect: SideEffect | undefined, known: string): ToolError {
    return error(
      tool,
      'ALREADY_STARTED',
      `This call repeats the id of call ${repeatOf} (it was renamed ${callId}); ${sideEffectOf(tool, sideEffect)} and call ${repeatOf} already started, so it is not run again. What is known of call ${repeatOf}: ${known}`,
      `Use the result of call ${repeatOf}. If another ${tool} is really wanted, call it with a new id after checking that the first did not already do it.`,
    );
  },
  denied(tool: string, by: string, rule: string, reason: string | undefined): ToolError {
    return error(
      tool,
      'DENIED',
      `${tool} was denied (${by}: ${rule})${reason ? `: ${reason}` : ''}. It did not run.`,
      'Do not retry the same call: it will be denied again. Choose another approach, or ask the user.',
    );
  },
  cancelled(tool: string, when: string): ToolError {
    return error(tool, 'CANCELLED', `The turn was cancelled ${when}; ${tool} did not run.`, 'Nothing to undo. Run it again only if the user still wants it.');
  },
  alreadyStarted(tool: string, callId: string, sideEffect: SideEffect | undefined): ToolError {
    return error(
      tool,
      'ALREADY_STARTED',
      `An execution of this call (${callId}) already started earlier, for example before a restart; ${sideEffectOf(tool, sideEffect)}, so it is not run a second time. It may have run.`,
      MAY_HAVE_RUN,
    );
  },
  notRecorded(tool: string, detail: string, ranBefore: boolean): ToolError {
    return error(
      tool,
      'NOT_RECORDED',
      `${tool} was not run${ranBefore ? ' again' : ''}: its start could not be recorded (${detail}).${ranBefore ? ' An earlier attempt may have run.' : ''}`,
      'This is a system problem, not a problem with your call.',
    );
  },
  callNotRecorded(tool: string, detail: string): ToolError {
    return error(
      tool,
      'NOT_RECORDED',
      `${tool} was not run: the call could not be recorded (${detail}), so no one was asked to approve it.`,
      'This is a system problem, not a problem with your call.',
    );
  },
  timeout(tool: string, timeoutMs: number, attempts: number): ToolError {
    return error(
      tool,
      'TIMEOUT',
      `${tool} did not finish within ${timeoutMs} ms${attempts > 1 ? ` (${attempts} attempts)` : ''}. It may have run, partly or fully.`,
      MAY_HAVE_RUN,
    );
  },
  interrupted(tool: string): ToolError {
    return error(tool, 'INTERRUPTED', `${tool} was interrupted while running (the turn was cancelled). It may have run, partly or fully.`, MAY_HAVE_RUN);
  },
  failed(tool: string, code: string, message: string, suggestion: string): ToolError {
    return { failed_tool: tool, error_code: code, error_message: message, suggestion };
  },
  toolError(tool: string, message: string, attempts: number, sideEffect: SideEffect): ToolError {
    const stateful = sideEffect === 'STATEFUL' || sideEffect === 'CRITICAL';
    return error(
      tool,
      'TOOL_ERROR',
      `${tool} failed${attempts > 1 ? ` (${attempts} attempts)` : ''}: ${message}`,
      stateful
        ? `It may have partly taken effect. ${MAY_HAVE_RUN}`
        : 'Check the arguments, or try a different approach; repeating the same call is unlikely to help.',
    );
  },
  invalidOutput(tool: string, detail: string): ToolError {
    return error(
      tool,
      'INVALID_OUTPUT',
      `${tool} ran but returned output that does not match its declared output: ${detail}`,
      `Its side effects, if any, may have happened. ${MAY_HAVE_RUN}`,
    );
  },
  internal(tool: string, detail: string, mayHaveRun: boolean): ToolError {
    return error(
      tool,
      'INTERNAL_ERROR',
      `The tool pipeline failed while handling ${tool}: ${detail}.${mayHaveRun ? ' It may have run.' : ' It did not run.'}`,
      mayHaveRun ? MAY_HAVE_RUN : 'This is a system problem, not a problem with your call.',
    );
  },
};

/** The text the model reads for a failed or unknown result: the structured error as JSON. */
export function renderError(error: ToolError): string {
  return JSON.stringify({
    failed_tool: error.failed_tool,
    error_code: error.error_code,
    error_message: error.error_message,
    suggestion: error.suggestion,
  });
}
