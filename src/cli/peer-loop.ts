/**
 * The loop a command drives, if it is not loopgate's own: `--loop`, else the
 * config's `loop` (a name, or an adapter the config built with the user's
 * options). `loopgate` (the default) is not one: the second host drives it
 * directly. `loopgate run` gates it; `loopgate fuzz` fuzzes it.
 */
import type { ResolvedConfig } from '../config/load-config.ts';
import type { LoopUnderTestFactory } from '../harness/loop-port/peer-world.ts';

export async function peerLoopOf(flag: string | undefined, config: ResolvedConfig): Promise<LoopUnderTestFactory | undefined> {
  const chosen = flag ?? config.loop;
  if (chosen === undefined || chosen === 'loopgate') return undefined;
  const { loadPeerLoop } = await import('../loops/registry.ts');
  if (typeof chosen !== 'string') return flag === undefined || flag === chosen.id ? chosen : loadPeerLoop(flag);
  // The config's own adapter of that loop (with the user's options) wins over the default one.
  if (typeof config.loop === 'object' && config.loop.id === chosen) return config.loop;
  return loadPeerLoop(chosen, flag !== undefined ? '--loop' : `${config.file}: loop`);
}
