/**
 * The loops `loopgate run --loop NAME` can gate, each loaded only when asked for
 * (the peers' packages are optional peer dependencies: loopgate runs without
 * them). A name nobody knows, or a peer whose package is not installed, is an
 * input error naming it — exit 2, nothing run.
 */
import { InputError } from '../kernel/index.ts';
import type { LoopUnderTestFactory } from '../harness/loop-port/peer-world.ts';

export const LOOPGATE = 'loopgate';

/** Each peer: its package, and how to load its default adapter. */
const PEERS: Readonly<Record<string, { readonly packages: readonly string[]; readonly load: () => Promise<LoopUnderTestFactory> }>> = {
  'ai-sdk': { packages: ['ai'], load: async () => (await import('./ai-sdk/adapter.ts')).aiSdkLoop() },
  'openai-agents': { packages: ['@openai/agents'], load: async () => (await import('./openai-agents/adapter.ts')).openAiAgentsLoop() },
};

export const LOOP_NAMES: readonly string[] = [LOOPGATE, ...Object.keys(PEERS)];

export class LoopNotAvailableError extends InputError {
  constructor(message: string) {
    super(message);
    this.name = 'LoopNotAvailableError';
  }
}

/** The adapter for a peer loop by name (`loopgate` is not a peer: the second host drives it directly). */
export async function loadPeerLoop(name: string, flag = '--loop'): Promise<LoopUnderTestFactory> {
  const peer = PEERS[name];
  if (!peer) throw new LoopNotAvailableError(`${flag} ${JSON.stringify(name)}: unknown loop; known: ${LOOP_NAMES.join(', ')}`);
  return loadPeer(name, peer.packages, peer.load, flag);
}

/** Loads a peer's adapter; a package that is not installed is an input error saying which and how to install it. */
export async function loadPeer<T>(name: string, packages: readonly string[], load: () => Promise<T>, flag = '--loop'): Promise<T> {
  try {
    return await load();
  } catch (error) {
    const message = String((error as Error)?.message);
    const missing = (error as { code?: string })?.code === 'ERR_MODULE_NOT_FOUND' || /Cannot find (module|package)/.test(message);
    // The package Node names, when it is not the peer's own: the peer's is installed, something its adapter needs is not.
    const named = /Cannot find (?:module|package) '((?:@[^/'\s]+\/)?[^/'\s]+)/.exec(message)?.[1];
    if (missing && named !== undefined && !named.startsWith('.') && !named.startsWith('/') && !packages.includes(named))
      throw new LoopNotAvailableError(`${flag} ${name}: its adapter needs ${named}, which is not installed; npm install --save-dev ${named}`);
    if (missing)
      throw new LoopNotAvailableError(
        `${flag} ${name}: ${packages.join(' and ')} is not installed — it is an optional peer dependency of loopgate; npm install --save-dev ${packages.join(' ')}`,
      );
    throw error;
  }
}
