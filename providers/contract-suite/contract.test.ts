/**
 * The shared contract suite, run for the in-process fake and for each adapter
 * over its wire-level fake (the real SDK parses the bytes), streaming and not.
 */
// Through the public entry (published as `loopgate/vitest`), as users import it.
import { createScriptedHarness, createWireHarness, describeModelClientContract } from '../vitest.ts';

describeModelClientContract('fake (in-process scripted)', createScriptedHarness());
describeModelClientContract('anthropic over the wire fake', createWireHarness('anthropic'));
describeModelClientContract('openai-chat over the wire fake', createWireHarness('openai-chat'));
describeModelClientContract('openai-responses over the wire fake', createWireHarness('openai-responses'));
// Each adapter asked not to stream: one JSON body, its own parsing path.
describeModelClientContract('anthropic over the wire fake, no streaming', createWireHarness('anthropic', { adapter: { stream: false } }));
describeModelClientContract('openai-chat over the wire fake, no streaming', createWireHarness('openai-chat', { adapter: { stream: false } }));
describeModelClientContract('openai-responses over the wire fake, no streaming', createWireHarness('openai-responses', { adapter: { stream: false } }));
