/**
 * The `experimental_context` the AI SDK hands the tool call running now. The
 * gate's tools wrap the agent's own `execute` (scripted and counted by the
 * harness); the SDK gives each call the context of its step — the agent's, or
 * what its `prepareCall` or `prepareStep` set for this call — and the wrapped
 * `execute` must get that one, as in production, not only the agent's static
 * value (outside probe 34, HIGH-1). Carried through the harness's wrapping by
 * async context: outside an AI SDK loop (loopgate's own) there is none.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export const sdkCallContext = new AsyncLocalStorage<{ readonly context: unknown }>();
