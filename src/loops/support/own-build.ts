/**
 * A loop made together with its agent (`toolLoopAgent`, `openAiAgent`) runs the build its agent factory made for
 * the case, found by the agent the factory returned (`PeerWorld.built`). A case of another agent would run with this
 * one's instructions and hooks, silently: it fails naming its tools.
 */
import { AgentBuildError } from '../../harness/world/agent-under-test.ts';
import type { PeerWorld } from '../../harness/loop-port/peer-world.ts';

export function buildOfCase<B>(builds: WeakMap<object, B>, world: PeerWorld, adapter: string): B {
  const own = builds.get(world.built);
  if (own !== undefined) return own;
  const tools =
    world.tools
      .map((t) => t.name)
      .sort()
      .join(', ') || 'none';
  throw new AgentBuildError(
    `${adapter}: the case's agent (tools: ${tools}) was not built by this ${adapter}(…): give its loop only to configs whose agents are its .agent`,
  );
}
