export { PromptAssembler, PromptFragmentError, PRIORITY, type PromptFragment, type AssembledPrompt } from './assembler.ts';
