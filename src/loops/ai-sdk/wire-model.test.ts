/** The AI SDK's wire cases without its provider packages installed: one line saying what to install (probe 26, F4). */
import { describe, expect, it } from 'vitest';
import { AgentBuildError } from '../../harness/world/agent-under-test.ts';
import { provider, WirePackageMissingError } from './wire-model.ts';

describe('wire provider packages', () => {
  it('a package that is not installed fails the case in one line naming it and the install command', async () => {
    const missing = provider('@ai-sdk/anthropic', () => import('@ai-sdk/no-such-provider' as string));
    await expect(missing).rejects.toBeInstanceOf(WirePackageMissingError);
    await expect(missing).rejects.toBeInstanceOf(AgentBuildError); // the runner shows its message alone, no stack
    await expect(missing).rejects.toThrow(
      "the AI SDK's wire cases run its own provider package, @ai-sdk/anthropic, which is not installed — an optional peer dependency of loopgate; npm install --save-dev @ai-sdk/anthropic @ai-sdk/openai",
    );
  });
  it('any other failure is not taken for a missing package', async () => {
    await expect(provider('@ai-sdk/anthropic', () => Promise.reject(new TypeError('broken')))).rejects.toThrow(TypeError);
  });
});
