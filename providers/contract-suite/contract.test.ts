/**
 * The shared contract suite, run for the in-process fake and for each adapter
 * over its wire-level fake (the real SDK parses the bytes).
 */
// Through the public entry (published as `loopgate/vitest`), as users import it.
import { createScriptedHarness, createWireHarness, describeModelClientContract } from '../vitest.ts';

describeModelClientContract('fake (in-process scripted)', createScriptedHarness());
describeModelClientContract('anthropic over the wire fake', createWireHarness('anthropic'));
describeModelClientContract('openai-chat over the wire fake', createWireHarness('openai-chat'));
describeModelClientContract('openai-responses over the wire fake', createWireHarness('openai-responses'));
