/**
 * The machine a result was measured on: numbers from different machines are not
 * comparable, so every results file carries this.
 */
import { cpus, totalmem, platform, arch, release, loadavg } from 'node:os';

export interface Machine {
  readonly cpu: string;
  readonly cores: number;
  readonly memoryGiB: number;
  readonly os: string;
  readonly node: string;
  readonly date: string;
  /** 1, 5 and 15-minute load averages when the results were written: how busy the machine was (other processes share its cores). */
  readonly loadAverage: readonly number[];
}

export function machine(): Machine {
  const list = cpus();
  return {
    cpu: list[0]?.model.trim() || 'unknown',
    cores: list.length,
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    os: `${platform()} ${release()} ${arch()}`,
    node: process.version,
    date: new Date().toISOString(),
    loadAverage: loadavg().map((l) => Math.round(l * 100) / 100),
  };
}

export function machineLine(m: Machine): string {
  const load = m.loadAverage ? `, load average ${m.loadAverage.join(' / ')}` : '';
  return `${m.cpu}, ${m.cores} cores, ${m.memoryGiB} GiB, ${m.os}, Node ${m.node}, ${m.date}${load}`;
}
