// `orca operator` (or `npm run operator`): runs the Kubernetes operator
// (operator/, docs/operator.md) with the settings cli/config.ts reads from
// the environment, in-cluster when KUBERNETES_SERVICE_HOST is set, else
// with KUBECONFIG or ~/.kube/config, until SIGINT or SIGTERM; then it
// releases its Lease so a standby takes over at once, and exits 0.
import { EXIT } from './exit-codes.ts';

export async function runOperator(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  if (argv.length > 0) {
    process.stderr.write(`orca operator: takes no arguments (got '${argv.join(' ')}'); it is configured by environment variables (docs/operator.md)\n`);
    return EXIT.USAGE;
  }
  const { loadConfig } = await import('../config.ts');
  const loaded = loadConfig(env);
  if (!loaded.ok) {
    process.stderr.write(`orca operator: ${loaded.errors.join('\norca operator: ')}\n`);
    return EXIT.USAGE;
  }
  const { operator, http } = loaded.config;
  if (operator.orcaUrl === undefined) {
    process.stderr.write('orca operator: ORCA_URL is required: the Orca API base URL the operator deploys to\n');
    return EXIT.USAGE;
  }
  const { startOperator } = await import('../../operator/index.ts');
  const running = await startOperator({
    orcaUrl: operator.orcaUrl,
    watchNamespace: operator.watchNamespace,
    leaseNamespace: operator.leaseNamespace,
    identity: operator.identity,
    resyncSeconds: operator.resyncSeconds,
    port: http.port,
    inCluster: Boolean(env.KUBERNETES_SERVICE_HOST),
  });
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await running.stop();
  return EXIT.OK;
}
