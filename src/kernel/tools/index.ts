/** The tool pipeline's public surface (the loop's contract is in types.ts). */
export * from './types.ts';
export { defineTool } from './define-tool.ts';
export { ToolRegistry, ToolDeclarationError, toolDeclarationProblems, type RegisteredTool } from './registry.ts';
export { resolveVisibility, standardLayers, type VisibilityLayer, type Visibility, type HiddenReason } from './visibility.ts';
export { lenientParse, type LenientParseResult, type Repair } from './lenient-parse.ts';
export { validateArgs, describeIssues, type ValidationResult } from './validate.ts';
export { evaluateRules, decide, checkPolicy, type ToolPolicy, type PolicyRule, type PolicyVerdict, type PolicyOutcome, type RuleVerdict } from './policy.ts';
export { createToolExecutor, DEFAULT_MAX_OUTPUT_CHARS, DEFAULT_TIMEOUT_MS, type ToolExecutorOptions } from './pipeline.ts';
export { DEFAULT_MAX_RETRIES } from './retry-policy.ts';
export { ERROR_CODES, renderError, type PipelineErrorCode } from './tool-errors.ts';
export { truncateForModel } from './truncate.ts';
export { nameMatcher, type NameMatcher } from './glob.ts';
export { checkToolNames, didYouMean, toolNameProblems, unmatchedToolName, ToolNameError, type ToolNameProblem } from './tool-names.ts';
export { MAX_ARGUMENT_DEPTH, TOO_DEEP, nestedDeeperThan, cutAtDepth } from './argument-depth.ts';
