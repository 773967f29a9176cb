// Micro-benchmark: µs per evaluation of typical gateway conditions and DMN
// input entries through the engine/feel API versus feelin called directly.
// Run with `npx tsx engine/feel/bench-feel.ts`.
import { evaluate as feelinEvaluate, unaryTest as feelinUnaryTest } from 'feelin';
import { compileExpression, compileUnaryTests, evaluateFeel, isFastPath, isFastUnaryTests } from './index.ts';

const contexts = Array.from({ length: 64 }, (_, i) => ({
  amount: 500 + i * 37,
  status: i % 3 === 0 ? 'gold' : 'silver',
  customer: { name: `c${i}`, vip: i % 2 === 0 },
  region: 'EU',
  priority: i % 5,
  items: [1, 2, 3],
}));

let sink: unknown;

function microseconds(iterations: number, body: (i: number) => unknown): number {
  for (let i = 0; i < Math.min(iterations, 20_000); i++) sink = body(i);
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) sink = body(i);
  return Number(process.hrtime.bigint() - start) / 1000 / iterations;
}

function row(label: string, api: number, direct: number): void {
  console.log(`${label.padEnd(74)} ${api.toFixed(3).padStart(9)} µs ${direct.toFixed(3).padStart(10)} µs ${(direct / api).toFixed(0).padStart(7)}x`);
}

function expression(source: string, fastIterations = 2_000_000, slowIterations = 5_000): void {
  const compiled = compileExpression(source);
  if (!compiled.ok) throw new Error(compiled.error);
  const iterations = isFastPath(source) ? fastIterations : slowIterations;
  const viaCompiled = microseconds(iterations, (i) => compiled.value.evaluate(contexts[i & 63]));
  const viaEvaluateFeel = microseconds(iterations, (i) => evaluateFeel(source, contexts[i & 63]));
  const direct = microseconds(slowIterations, (i) => feelinEvaluate(source, contexts[i & 63]).value);
  const tag = isFastPath(source) ? 'fast' : 'feelin';
  row(`${source} [${tag}] compiled.evaluate`, viaCompiled, direct);
  row(`${source} [${tag}] evaluateFeel (cache lookup)`, viaEvaluateFeel, direct);
}

function unaryTests(source: string, inputs: readonly unknown[]): void {
  const compiled = compileUnaryTests(source);
  if (!compiled.ok) throw new Error(compiled.error);
  const iterations = isFastUnaryTests(source) ? 2_000_000 : 5_000;
  const api = microseconds(iterations, (i) => compiled.value.test(inputs[i % inputs.length], {}));
  const direct = microseconds(5_000, (i) => feelinUnaryTest(source, { '?': inputs[i % inputs.length] }).value);
  row(`unary ${source} [${isFastUnaryTests(source) ? 'fast' : 'feelin'}]`, api, direct);
}

console.log(`${'expression'.padEnd(74)} ${'engine/feel'.padStart(12)} ${'feelin'.padStart(13)} ${'speedup'.padStart(8)}`);
expression('amount > 1000 and status = "gold"');
expression('customer.vip = true or priority >= 3');
expression('not(status = "gold") and region != "US"');
expression('amount');
expression('string length(status) > 4');
// Can loop, so it runs under the watchdog (engine/feel/deadline.ts): its line shows what that costs.
expression('for i in items return i * 2');
unaryTests('"gold", "silver"', ['gold', 'bronze', 'silver']);
unaryTests('[1000..2000]', [500, 1500, 2500]);
unaryTests('< 1000', [500, 1500]);
if (sink === Symbol.for('never')) console.log(sink);
