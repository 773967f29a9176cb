// `orca operator` as a platform engineer runs it outside a cluster: a child
// process with KUBECONFIG and ORCA_URL from the environment, probes on
// PORT; it reconciles, and on SIGTERM releases its Lease and exits 0. Bad
// settings stop it at once with exit 2 and the variable's name.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runOperator } from '../../cli/commands/operator.ts';
import { freePort } from '../../loadtest/bench-e2e-server.ts';
import { serviceProcess } from '../api/workflow-support.ts';
import { eventually, NS, operatorWorld, PD } from './operator-fixture.ts';

const world = operatorWorld();
let dir: string | undefined;
afterAll(() => (dir ? rm(dir, { recursive: true, force: true }) : undefined));

describe('orca operator', () => {
  it('refuses arguments and a missing or bad ORCA_URL with exit 2', async () => {
    expect(await runOperator(['--now'], {})).toBe(2);
    expect(await runOperator([], {})).toBe(2);
    expect(await runOperator([], { ORCA_URL: 'ftp://x' })).toBe(2);
  });

  it('runs from the environment, reconciles, and on SIGTERM releases the Lease and exits 0', async () => {
    dir = await mkdtemp(join(tmpdir(), 'orca-operator-'));
    const port = await freePort();
    const child = spawn(process.execPath, ['bin/orca.js', 'operator'], {
      env: {
        PATH: process.env.PATH,
        KUBECONFIG: world.kube.writeKubeconfig(dir),
        ORCA_URL: world.orca.baseUrl,
        PORT: String(port),
        ORCA_OPERATOR_IDENTITY: 'cli-replica',
        ORCA_OPERATOR_LEASE_NAMESPACE: NS,
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      await eventually(
        async () => ((await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined))?.status === 200 ? true : undefined),
        'the child ready',
        30_000,
      );
      world.kube.create(world.processDefinition('from-cli', { bpmnXml: serviceProcess('from-cli', 'x') }));
      await world.condition(PD, 'from-cli', 'Ready', 'True');
      expect(stderr).toMatch(/"msg":"operator started"/);
      expect(stderr).not.toContain(world.apiKey);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    const lease = world.kube.get('coordination.k8s.io/v1', 'Lease', NS, 'orca-operator') as unknown as { spec: { holderIdentity?: string | null } };
    expect(lease.spec.holderIdentity ?? '').toBe('');
  }, 60_000);
});
