/**
 * A reader that goes away (`loopgate tables | head`) closes the pipe: the next
 * write fails with EPIPE. That is the reader's choice, not an error: end at
 * once, quietly, with the exit code so far — no stack, no "Unhandled 'error'
 * event". Any other write error on the stream is reported in one line.
 */
export function endQuietlyOnClosedOutput(stream: NodeJS.WriteStream, exit: (code: number) => never = process.exit.bind(process)): void {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') exit((process.exitCode as number | undefined) ?? 0);
    if (stream !== process.stderr) process.stderr.write(`loopgate: cannot write to the output: ${error.code ?? error.message}\n`);
    exit(2);
  });
}
