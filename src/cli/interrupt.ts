/**
 * What a command stopped by SIGINT or SIGTERM leaves behind. main.ts ends the
 * process (130 or 143) with one line; a command that writes files says, while it
 * runs, how to leave none that could pass for its own (`whenInterrupted`): the
 * line then tells what that did. No imports: main.ts loads it up front.
 */
type Cleanup = () => string;

let current: Cleanup | undefined;

/** Until the returned function is called, an interrupt runs `cleanup` and tells what it returns. */
export function whenInterrupted(cleanup: Cleanup): () => void {
  current = cleanup;
  return () => {
    if (current === cleanup) current = undefined;
  };
}

/** What the interrupted command left, in words (after running its cleanup); undefined when it named nothing. */
export function cleanUpAfterInterrupt(): string | undefined {
  const cleanup = current;
  current = undefined;
  if (!cleanup) return undefined;
  try {
    return cleanup();
  } catch (error) {
    return `could not clean up: ${error instanceof Error ? error.message : String(error)}`;
  }
}
