/**
 * Where the host's step goes, in one process, alternated: loopgate's loop on the
 * memory store, the AgentHost on the memory store, the AgentHost on SQLite (CPU µs/step).
 *   node bench/profile-host-split.ts [runs per sample] [samples]
 */
import { MemoryEventStore } from '../src/stores/memory-store.ts';
import { createShared, loopgateContender } from './loop/loopgate.ts';
import { loopgateHostContender } from './loop/loopgate-host.ts';
import { median } from './lib/stats.ts';

const runs = Number(process.argv[2] ?? 200);
const samples = Number(process.argv[3] ?? 15);
const contenders = [
  { ...loopgateContender(createShared()), name: 'loop + memory store' },
  { ...loopgateHostContender(() => new MemoryEventStore()), name: 'AgentHost + memory store' },
  { ...loopgateHostContender(), name: 'AgentHost + SQLite' },
];
const cpu = new Map<string, number[]>(contenders.map((c) => [c.name, []]));
for (let s = 0; s < samples + 3; s++) {
  for (const c of contenders) {
    const before = process.cpuUsage();
    let steps = 0;
    for (let i = 0; i < runs; i++) steps += await c.run();
    const used = process.cpuUsage(before);
    if (s >= 3) cpu.get(c.name)!.push((used.user + used.system) / steps);
  }
}
for (const c of contenders) {
  const xs = cpu.get(c.name)!;
  process.stdout.write(`${c.name.padEnd(28)} CPU µs/step median ${median(xs).toFixed(1)}, mean ${(xs.reduce((a, b) => a + b, 0) / xs.length).toFixed(1)}\n`);
}
for (const c of contenders) await (c as { close?: () => Promise<void> }).close?.();
