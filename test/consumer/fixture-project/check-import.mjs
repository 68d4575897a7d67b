// Plain Node ESM, no TypeScript and no test runner: `import('loopgate')` as any
// JavaScript consumer does, then a few real calls. Prints one JSON line; exits 1
// with the reason when something is wrong.
import { registerHooks } from 'node:module';

const resolved = new Set();
registerHooks({
  resolve(specifier, context, next) {
    resolved.add(specifier);
    return next(specifier, context);
  },
});

const loopgate = await import('loopgate');
// The project's own agent, TypeScript imported from plain JavaScript (Node strips the types).
const { travelAgent } = await import('./src/agent.ts');
const problems = [];
for (const name of ['AgentHost', 'MemoryEventStore', 'SqliteEventStore', 'defineTool', 'defineConfig', 'defineInvariant', 'runScenarioFile', 'runFuzz', 'fuzzAgent', 'parseScenario', 'VirtualClock']) {
  if (typeof loopgate[name] !== 'function') problems.push(`loopgate.${name} is ${typeof loopgate[name]}, not a function`);
}

const scenario = await loopgate.runScenarioFile('scenarios/order-status.yaml', { agents: { travel: travelAgent } });
if (scenario.status !== 'passed') problems.push(`scenarios/order-status.yaml: ${scenario.status}: ${JSON.stringify(scenario.checks.filter((c) => !c.passed))}`);

// The fuzz API needs fast-check at run time: a dependency, not a devDependency.
const fuzz = await loopgate.fuzzAgent({ agent: travelAgent, runs: 5, seed: 7 });
if (fuzz.runs !== 5 || fuzz.failure) problems.push(`fuzzAgent: ${fuzz.runs} runs, failure: ${fuzz.failure?.invariant.id ?? 'none'}: ${fuzz.failure?.message ?? ''}`);

// The main entry must not need vitest (an optional peer, for loopgate/vitest only).
const vitest = [...resolved].filter((s) => s === 'vitest' || s.startsWith('vitest/') || s.startsWith('@vitest/'));
if (vitest.length > 0) problems.push(`import('loopgate') loaded ${vitest.join(', ')}`);

if (problems.length > 0) {
  process.stderr.write(`${problems.join('\n')}\n`);
  process.exit(1);
}
process.stdout.write(`${JSON.stringify({ exports: Object.keys(loopgate).length, scenario: scenario.status, fuzzRuns: fuzz.runs, modulesResolved: resolved.size })}\n`);
