/** A contract behaviour as the bytes a provider sends: a wire plan in its protocol. */
import type { Behaviour } from './behaviours.ts';
import { duplicated, insertAfter, upToNth, withoutTags } from '../wire-fakes/faults.ts';
import type { WirePlan } from '../wire-fakes/plan.ts';
import { jsonPlan, streamPlan } from '../wire-fakes/plan.ts';
import type { ProtocolKit } from '../wire-fakes/protocol.ts';

/** Throws UnsupportedOnWire when the provider cannot produce the behaviour. */
export function wirePlanFor(kit: ProtocolKit, behaviour: Behaviour): WirePlan {
  switch (behaviour.kind) {
    case 'turn':
      return streamPlan(kit.streamFrames(behaviour.turn));
    case 'http_error': {
      const answer = kit.errorAnswer(behaviour.error, behaviour.status);
      const headers: Record<string, string> = { ...answer.headers };
      if (behaviour.retryAfterSeconds !== undefined) headers['retry-after'] = String(behaviour.retryAfterSeconds);
      return jsonPlan(answer.status, answer.body, headers);
    }
    case 'reset_before_response':
      return { kind: 'reset' };
    case 'empty_stream':
      return streamPlan([]);
    case 'stream_fault': {
      const frames = kit.streamFrames(behaviour.turn);
      const fault = behaviour.fault;
      switch (fault.type) {
        case 'stall':
          return streamPlan(upToNth(frames, fault.after, fault.nth), 'stall');
        case 'reset':
          return streamPlan(upToNth(frames, fault.after, fault.nth), 'reset');
        case 'malformed':
          return streamPlan(insertAfter(frames, fault.after, kit.malformedFrame()));
        case 'error_event':
          // After the error event the server closes the stream, as the APIs do.
          return streamPlan([...upToNth(frames, fault.after), kit.overloadedEventFrame()]);
        case 'drop_end':
          return streamPlan(withoutTags(frames, kit.endTags));
        case 'duplicate':
          return streamPlan(duplicated(frames, kit.duplicableTags));
        case 'stall_after_end':
          return streamPlan(frames, 'stall');
      }
    }
  }
}
