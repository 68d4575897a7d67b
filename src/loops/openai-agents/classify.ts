/**
 * How an OpenAI Agents `run` ended, in loopgate's closed alphabet — the adapter's
 * documented classifier. Resolved: a non-empty final output → replied, an empty
 * one → failed{empty_reply}. Thrown: our cancel → cancelled{the first source};
 * MaxTurnsExceededError → failed{max_steps}; ModelRefusalError → failed{refusal};
 * InputGuardrailTripwireTriggered → rejected; a failed Session write →
 * failed{persistence}; ModelBehaviorError on `response.incomplete` →
 * failed{max_tokens}; an API error by status (as the AI SDK's); anything else
 * failed{internal} with its name (an unknown tool, a tool timeout raised).
 */
import { InputGuardrailTripwireTriggered, MaxTurnsExceededError, ModelBehaviorError, ModelRefusalError } from '@openai/agents';
import type { Outcome } from '../../kernel/index.ts';
import { cancelOf } from '../../harness/loop-port/peer-cancel.ts';
import type { PeerEnding } from '../../harness/loop-port/port.ts';
import { byStatus } from '../support/by-status.ts';
import { SessionWriteFault } from './faulty-session.ts';

export function classifyAgentsError(error: unknown, signal: AbortSignal): Outcome {
  const cancel = cancelOf(signal);
  if (cancel) return { kind: 'cancelled', by: cancel.by };
  if (error instanceof MaxTurnsExceededError) return { kind: 'failed', reason: 'max_steps' };
  if (error instanceof ModelRefusalError) return { kind: 'failed', reason: 'refusal' };
  if (error instanceof InputGuardrailTripwireTriggered) return { kind: 'rejected' };
  if (error instanceof SessionWriteFault || (error as { cause?: unknown })?.cause instanceof SessionWriteFault)
    return { kind: 'failed', reason: 'persistence' };
  if (error instanceof ModelBehaviorError && /response\.incomplete/.test(error.message)) return { kind: 'failed', reason: 'max_tokens' };
  const status = (error as { status?: unknown })?.status;
  if (typeof status === 'number' || (error as Error)?.name === 'APIConnectionError')
    return byStatus(typeof status === 'number' ? status : undefined, JSON.stringify((error as { error?: unknown }).error ?? (error as Error).message));
  return { kind: 'failed', reason: 'internal', detail: (error as Error)?.name ?? typeof error };
}

export function agentsEnding(error: unknown): PeerEnding {
  const e = error as { name?: string; message?: string; status?: number };
  return {
    kind: 'threw',
    errorClass: e?.name ?? typeof error,
    ...(typeof e?.status === 'number' ? { status: e.status } : {}),
    message: String(e?.message ?? error).slice(0, 300),
  };
}
