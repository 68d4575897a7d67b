// Preloaded into a benchmarked child (node --import): at exit, writes the CPU
// time (user + system, µs) the process used to the file LOOPGATE_BENCH_CPU_FILE names.
import { writeFileSync } from 'node:fs';

const file = process.env.LOOPGATE_BENCH_CPU_FILE;
if (file) {
  process.on('exit', () => {
    const { user, system } = process.cpuUsage();
    writeFileSync(file, String(user + system));
  });
}
