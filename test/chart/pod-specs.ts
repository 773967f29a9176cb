// The pod templates among rendered objects, with the workload they belong
// to, for the chart tests that look inside pods (security, probes, env).
import type { K8sObject } from './render.ts';

export interface SecurityContext {
  runAsNonRoot?: boolean;
  runAsUser?: number;
  runAsGroup?: number;
  fsGroup?: number;
  allowPrivilegeEscalation?: boolean;
  readOnlyRootFilesystem?: boolean;
  privileged?: boolean;
  capabilities?: { drop?: string[]; add?: string[] };
  seccompProfile?: { type: string };
}

export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string }; fieldRef?: { fieldPath: string }; configMapKeyRef?: { name: string; key: string } };
}

export interface Probe {
  httpGet?: { path: string; port: string | number };
}

export interface Container {
  name: string;
  image: string;
  args?: string[];
  env?: EnvVar[];
  ports?: { name?: string; containerPort: number }[];
  securityContext?: SecurityContext;
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  startupProbe?: Probe;
  volumeMounts?: { name: string; mountPath: string }[];
}

export interface PodSpec {
  securityContext?: SecurityContext;
  containers: Container[];
  initContainers?: Container[];
  volumes?: { name: string; emptyDir?: object; hostPath?: object }[];
  hostNetwork?: boolean;
  hostPID?: boolean;
  hostIPC?: boolean;
  terminationGracePeriodSeconds?: number;
  serviceAccountName?: string;
  automountServiceAccountToken?: boolean;
}

export interface Workload {
  object: K8sObject;
  component: string;
  pod: PodSpec;
}

const WORKLOAD_KINDS = new Set(['Deployment', 'StatefulSet', 'DaemonSet', 'Job', 'CronJob']);

/** Every workload among `objects` with its pod spec (a CronJob's is one level deeper). */
export function workloads(objects: K8sObject[]): Workload[] {
  return objects
    .filter((o) => WORKLOAD_KINDS.has(o.kind))
    .map((object) => {
      const spec = object.spec as { template?: { spec: PodSpec }; jobTemplate?: { spec: { template: { spec: PodSpec } } } };
      const pod = spec.template?.spec ?? spec.jobTemplate!.spec.template.spec;
      return { object, component: object.metadata.labels?.['app.kubernetes.io/component'] ?? '', pod };
    });
}

export function allContainers(pod: PodSpec): Container[] {
  return [...(pod.initContainers ?? []), ...pod.containers];
}

export function envOf(container: Container): Map<string, EnvVar> {
  return new Map((container.env ?? []).map((variable) => [variable.name, variable]));
}
