/**
 * The working folder a command started in, held for what it writes after the
 * cases ran. The agent's tools run in loopgate's process: one that calls
 * `process.chdir` (a build or deploy tool) moves the whole process, and
 * `--out reports` was then read against the tool's folder (outside probe 64,
 * F18). Once the cases ran, the command goes back to where it started, saying
 * where a tool had taken it.
 */
export function holdWorkingFolder(err: (text: string) => void): () => void {
  const start = process.cwd();
  return () => {
    let now: string;
    try {
      now = process.cwd();
    } catch {
      now = '(a folder since removed)'; // uv_cwd fails once the folder a tool went to is gone
    }
    if (now === start) return;
    try {
      process.chdir(start);
    } catch (error) {
      // The folder it started in is gone (a tool removed it): what it writes next is refused where it is checked.
      err(
        `loopgate: a tool changed the working folder to ${now} (process.chdir), and the folder the run started in, ${start}, cannot be entered again: ${(error as Error).message}\n`,
      );
      return;
    }
    err(`loopgate: a tool changed the working folder to ${now} (process.chdir); what the run writes goes where it started, ${start}\n`);
  };
}
