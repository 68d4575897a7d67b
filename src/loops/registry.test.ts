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
    const notInstalled = () => import(`${'ai-sdk-not-installed-'}${Date.now()}` as string);
    await expect(loadPeer('ai-sdk', ['ai'], notInstalled)).rejects.toThrow(
      '--loop ai-sdk: ai is not installed — it is an optional peer dependency of loopgate; npm install --save-dev ai',
    );
    await expect(loadPeer('ai-sdk', ['ai'], () => Promise.reject(new Error('adapter bug')))).rejects.toThrow('adapter bug');
  });
});
