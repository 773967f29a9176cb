// What a platform engineer types, end to end: kubectl (the chart tests'
// offline binary) applies the API-key Secret and the repository's
// sample resources against the fake API server, the operator deploys them to
// a real Orca, and `kubectl wait --for=condition=Ready` and `kubectl get`
// show the result through the CRDs' printer columns.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { OrcaClient } from '../../client/index.ts';
import { kubectl } from '../../operator/testing/kubectl.ts';
import { TOOLS, TOOLS_SKIP } from '../chart/helm-tools.ts';
import { operatorWorld } from './operator-fixture.ts';

const world = operatorWorld();
let dir: string | undefined;
afterAll(() => (dir ? rm(dir, { recursive: true, force: true }) : undefined));

describe.skipIf(TOOLS === undefined)(`kubectl apply of the samples ${TOOLS === undefined ? TOOLS_SKIP : ''}`, () => {
  it('applies the samples; each becomes Ready with its Orca version, as kubectl wait and get show', async () => {
    dir = await mkdtemp(join(tmpdir(), 'orca-kubectl-'));
    const kubeconfig = world.kube.writeKubeconfig(dir);
    const run = async (...args: string[]) => {
      const result = await kubectl(TOOLS!.kubectl, kubeconfig, args);
      expect(result.code, `kubectl ${args.join(' ')}: ${result.stderr}`).toBe(0);
      return result.stdout;
    };
    // As a manifest: `kubectl create secret` sends protobuf, which the fake server does not speak.
    const secret = join(dir, 'secret.yaml');
    await writeFile(secret, `apiVersion: v1\nkind: Secret\nmetadata:\n  name: orca-api-key\nstringData:\n  apiKey: ${world.apiKey}\n`);
    await run('apply', '--validate=false', '-f', secret);
    const operator = await world.operator();
    await run('apply', '--validate=false', '-f', 'crds/samples/');
    await run('wait', '--for=condition=Ready', 'processdefinition/order', 'processdefinition/order-deadline', 'decisiondefinition/shipping', '--timeout=60s');
    const table = await run('get', 'orcapd');
    expect(table).toMatch(/^NAME\s+READY\s+PROCESS ID\s+VERSION\s+AGE/m);
    expect(table).toMatch(/^order\s+True\s+order\s+1\s/m);
    const client = new OrcaClient({ url: world.orca.baseUrl, apiKey: world.apiKey });
    expect((await client.getProcessDefinition('order')).latestVersion).toBe(1);
    await operator.stop();
  }, 90_000);
});
