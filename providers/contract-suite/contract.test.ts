/**
 * The shared contract suite, run for the in-process fake and for each adapter
 * over its wire-level fake (the real SDK parses the bytes).
 */
import { describeModelClientContract } from './describe.ts';
import { createScriptedHarness } from './scripted-harness.ts';
import { createWireHarness } from './wire-harness.ts';

describeModelClientContract('fake (in-process scripted)', createScriptedHarness());
describeModelClientContract('anthropic over the wire fake', createWireHarness('anthropic'));
describeModelClientContract('openai-chat over the wire fake', createWireHarness('openai-chat'));
describeModelClientContract('openai-responses over the wire fake', createWireHarness('openai-responses'));
