/**
 * `defineTool` exists for inference: it ties `run`'s argument type to the input
 * schema (and its return type to the output schema) at the declaration site, then
 * widens to `AnyToolDeclaration` so declarations of different tools fit one list.
 */
import type { z } from 'zod';
import type { AnyToolDeclaration, ToolDeclaration } from './types.ts';

export function defineTool<I extends z.ZodType, O extends z.ZodType = z.ZodUnknown>(declaration: ToolDeclaration<I, O>): AnyToolDeclaration {
  return declaration as unknown as AnyToolDeclaration;
}
