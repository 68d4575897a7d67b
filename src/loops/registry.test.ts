import { describe, expect, it } from 'vitest';
import { loadPeer, loadPeerLoop, LoopNotAvailableError } from './registry.ts';

describe('choosing the loop to gate', () => {
  it('loads each peer’s adapter by name, lazily', async () => {
    expect((await loadPeerLoop('ai-sdk')).id).toBe('ai-sdk');
    expect((await loadPeerLoop('openai-agents')).version).toMatch(/^@openai\/agents \d+\.\d+\.\d+$/);
  });

  it('an unknown name is an input error naming it and the known loops', async () => {
    await expect(loadPeerLoop('langchain')).rejects.toThrow(
      new LoopNotAvailableError('--loop "langchain": unknown loop; known: loopgate, ai-sdk, openai-agents'),
    );
  });

  it('a peer whose package is not installed is an input error saying how to install it', async () => {
    const notInstalled = () => Promise.reject(Object.assign(new Error("Cannot find package 'ai' imported from /app/x.js"), { code: 'ERR_MODULE_NOT_FOUND' }));
    await expect(loadPeer('ai-sdk', ['ai'], notInstalled)).rejects.toThrow(
      '--loop ai-sdk: ai is not installed — it is an optional peer dependency of loopgate; npm install --save-dev ai',
    );
    await expect(loadPeer('ai-sdk', ['ai'], () => Promise.reject(new Error('adapter bug')))).rejects.toThrow('adapter bug');
  });

  it('a package missing that is not the peer’s own is named, not the peer’s (outside probe 39, F1)', async () => {
    const needsAi = Object.assign(new Error("Cannot find package 'ai' imported from /app/node_modules/loopgate/dist/src/loops/openai-agents/classify.js"), {
      code: 'ERR_MODULE_NOT_FOUND',
    });
    await expect(loadPeer('openai-agents', ['@openai/agents'], () => Promise.reject(needsAi))).rejects.toThrow(
      '--loop openai-agents: its adapter needs ai, which is not installed; npm install --save-dev ai',
    );
    const deep = Object.assign(new Error("Cannot find package '@openai/agents-core' imported from /app/x.js"), { code: 'ERR_MODULE_NOT_FOUND' });
    await expect(loadPeer('openai-agents', ['@openai/agents'], () => Promise.reject(deep))).rejects.toThrow(
      '--loop openai-agents: its adapter needs @openai/agents-core, which is not installed; npm install --save-dev @openai/agents-core',
    );
    // Node's own words for a package that is not there, from a real import.
    const gone = `ai-sdk-not-installed-${Date.now()}`;
    await expect(loadPeer('ai-sdk', ['ai'], () => import(gone as string))).rejects.toThrow(
      `--loop ai-sdk: its adapter needs ${gone}, which is not installed; npm install --save-dev ${gone}`,
    );
    const own = Object.assign(new Error("Cannot find package '@openai/agents' imported from /app/x.js"), { code: 'ERR_MODULE_NOT_FOUND' });
    await expect(loadPeer('openai-agents', ['@openai/agents'], () => Promise.reject(own))).rejects.toThrow(
      '--loop openai-agents: @openai/agents is not installed — it is an optional peer dependency of loopgate; npm install --save-dev @openai/agents',
    );
  });
});
