/**
 * A team's loop, built and read through the port: what its factory's `create(world)` returns must be an adapter,
 * and what it throws — there, or from `persistedHistory()` or `traces()` — is its own failure, told in its words:
 * the loop, the member, the message; never loopgate's stack (outside probe 54, LOW).
 */
import { AgentBuildError } from '../world/agent-under-test.ts';
import type { LoopUnderTestFactory, PeerAdapter, PeerWorld } from './peer-world.ts';

const SHAPE = 'a PeerAdapter has runTurn(turn), persistedHistory() and traces()';
const MEMBERS = ['runTurn', 'persistedHistory', 'traces'] as const;

/** The adapter `factory` builds for `world`, or an AgentBuildError saying why there is none. */
export async function buildAdapter(factory: LoopUnderTestFactory, world: PeerWorld): Promise<PeerAdapter> {
  let adapter: unknown;
  try {
    adapter = await factory.create(world);
  } catch (error) {
    if (error instanceof AgentBuildError) throw error; // already in its words (a loop refusing an agent it did not build)
    throw new AgentBuildError(`${factory.id}: create(world) threw: ${messageOf(error)}`);
  }
  if (typeof adapter !== 'object' || adapter === null) {
    throw new AgentBuildError(`${factory.id}: create(world) returned ${adapter === null ? 'null' : typeof adapter}, not an adapter: ${SHAPE}`);
  }
  const lacks = MEMBERS.filter((m) => typeof (adapter as Record<string, unknown>)[m] !== 'function');
  if (lacks.length > 0) {
    throw new AgentBuildError(`${factory.id}: create(world) returned an adapter without ${lacks.map((m) => `${m}()`).join(', ')}: ${SHAPE}`);
  }
  return adapter as PeerAdapter;
}

/** `read()` of one of the adapter's members, what it throws an AgentBuildError naming the member. */
export function readAdapter<T>(factory: LoopUnderTestFactory, member: 'persistedHistory' | 'traces' | 'waiting', read: () => T): T {
  try {
    return read();
  } catch (error) {
    throw new AgentBuildError(`${factory.id}: ${member}() threw: ${messageOf(error)}`);
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
