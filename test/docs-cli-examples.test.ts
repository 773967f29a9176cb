// docs/cli.md's model-check examples are a test: the `npx orca` lines of its
// cli-examples block run, as written, through bash in the repository root,
// so they only name files the repository has and do what the docs say.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../', import.meta.url));

function exampleLines(): string[] {
  const readme = readFileSync(new URL('docs/cli.md', `file://${root}`), 'utf8');
  const marker = readme.indexOf('<!-- cli-examples -->');
  expect(marker, 'docs/cli.md has a cli-examples block').toBeGreaterThan(0);
  const open = readme.indexOf('```sh', marker) + '```sh'.length;
  return readme
    .slice(open, readme.indexOf('```', open))
    .split('\n')
    .filter((line) => line.startsWith('npx orca '));
}

function bash(command: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('bash', ['-c', command], { cwd: root, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? Number((error as NodeJS.ErrnoException).code ?? 1) : 0, stdout, stderr });
    });
  });
}

describe('docs/cli.md model-check examples', () => {
  const [validate, simulateOrder, simulateShipping, simulateClaim] = exampleLines();

  it('has the four examples, each naming only files of the repository', () => {
    expect(simulateClaim, 'four npx orca lines').toBeDefined();
    for (const line of exampleLines()) expect(line).not.toContain('../');
  });

  it('validates the example models and decision', async () => {
    const r = await bash(validate);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('examples/order.bpmn: ok (1 executable process: order)');
    expect(r.stdout).toContain('examples/shipping.bpmn: ok (1 executable process: shipping)');
    expect(r.stdout).toContain('examples/shipping.dmn: ok (1 decision: carrier)');
    expect(r.stdout).toContain('examples/claim.cmmn: ok (1 case: claim)');
  });

  it('simulates the claim case, its process task running the order process', async () => {
    const r = await bash(simulateClaim);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as { state: string; planItems: { id: string; state: string }[]; variables: object };
    expect(report.state).toBe('COMPLETED');
    expect(Object.fromEntries(report.planItems.map((p) => [p.id, p.state]))).toMatchObject({
      Escalate: 'COMPLETED',
      Manager: 'COMPLETED',
      Ship: 'COMPLETED',
      Shipped: 'COMPLETED',
    });
    expect(report.variables).toEqual({ orderId: 'A1', approved: true, tracking: 'T-1' });
  });

  it('simulates the order to its end with the job variables given', async () => {
    const r = await bash(simulateOrder);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ state: 'COMPLETED', visited: ['received', 'ship', 'shipped'], variables: { orderId: 'A1', tracking: 'T-1' } });
  });

  it('simulates the business rule task against the DMN file given after the model', async () => {
    const r = await bash(simulateShipping);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      state: 'COMPLETED',
      visited: ['packed', 'choose', 'book', 'booked'],
      variables: { weightKg: 2, country: 'FR', carrier: 'courier', booked: true },
    });
  });
});
