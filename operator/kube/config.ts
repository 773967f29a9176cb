// Where the operator finds the Kubernetes API and how it authenticates:
// in-cluster (the pod's service account) when KUBERNETES_SERVICE_HOST is
// set, else KUBECONFIG or ~/.kube/config, or a kubeconfig text handed in
// (tests). @kubernetes/client-node is pinned to 1.4.x because 2.x requires
// Node 22 and Orca runs on Node 20; it is used here only for loading the
// kubeconfig and applying its credentials, the requests themselves are ours
// (api-client.ts), since its informer and patch helpers do not behave as an
// operator needs (see informer.ts).
import { KubeConfig } from '@kubernetes/client-node';

export function loadKubeConfig(options: { kubeconfig?: string; inCluster?: boolean } = {}): KubeConfig {
  const kc = new KubeConfig();
  if (options.kubeconfig !== undefined) kc.loadFromString(options.kubeconfig);
  else if (options.inCluster) kc.loadFromCluster();
  else kc.loadFromDefault();
  if (kc.getCurrentCluster() === null) throw new Error('No Kubernetes cluster in the kubeconfig (set KUBECONFIG, or run in a cluster)');
  return kc;
}
