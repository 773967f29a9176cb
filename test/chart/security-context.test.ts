// Every pod the chart renders, for every values file, runs under the
// restricted Pod Security profile: non-root with a numeric user (the
// Dockerfile's), no privilege escalation, every capability dropped,
// RuntimeDefault seccomp, a read-only root filesystem with /tmp on an
// emptyDir, and nothing of the host's. The checks are the profile's own
// rules, applied to each container with the pod's context as fallback.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../crds/crd-documents.ts';
import { TOOLS, TOOLS_SKIP } from './helm-tools.ts';
import { allContainers, workloads, type Container, type PodSpec } from './pod-specs.ts';
import { CI_VALUES, render } from './render.ts';

/** The user the Dockerfile's final stage runs as. */
function dockerfileUser(): number {
  const users = [...readFileSync(join(ROOT, 'Dockerfile'), 'utf8').matchAll(/^USER\s+(\S+)/gm)].map((m) => m[1]);
  return Number(users.at(-1)?.split(':')[0]);
}

/** What the restricted profile finds wrong with `container` in `pod`, one line each. */
function restrictedViolations(pod: PodSpec, container: Container): string[] {
  const problems: string[] = [];
  const own = container.securityContext ?? {};
  const shared = pod.securityContext ?? {};
  const runAsNonRoot = own.runAsNonRoot ?? shared.runAsNonRoot;
  const runAsUser = own.runAsUser ?? shared.runAsUser;
  const seccomp = own.seccompProfile?.type ?? shared.seccompProfile?.type;
  if (runAsNonRoot !== true) problems.push('runAsNonRoot is not true');
  if (typeof runAsUser !== 'number' || runAsUser === 0) problems.push(`runAsUser ${String(runAsUser)} is not a numeric non-root user`);
  if (own.allowPrivilegeEscalation !== false) problems.push('allowPrivilegeEscalation is not false');
  if (own.privileged === true) problems.push('privileged');
  if (!own.capabilities?.drop?.includes('ALL')) problems.push('capabilities do not drop ALL');
  if ((own.capabilities?.add ?? []).some((c) => c !== 'NET_BIND_SERVICE')) problems.push(`capabilities add ${own.capabilities?.add?.join(',')}`);
  if (seccomp !== 'RuntimeDefault' && seccomp !== 'Localhost') problems.push(`seccompProfile ${String(seccomp)}`);
  if (own.readOnlyRootFilesystem !== true) problems.push('the root filesystem is writable');
  return problems;
}

describe.skipIf(!TOOLS)(`pods under the restricted profile ${TOOLS ? '' : TOOLS_SKIP}`, () => {
  it.each(CI_VALUES)('%s: every container of every pod', (values) => {
    const found = workloads(render(values));
    expect(found.length).toBeGreaterThan(0);
    for (const { object, pod } of found) {
      expect(pod.hostNetwork ?? false, object.metadata.name).toBe(false);
      expect(pod.hostPID ?? false, object.metadata.name).toBe(false);
      expect(pod.hostIPC ?? false, object.metadata.name).toBe(false);
      expect(pod.volumes?.filter((v) => v.hostPath) ?? [], object.metadata.name).toEqual([]);
      expect(pod.securityContext?.seccompProfile?.type, object.metadata.name).toBe('RuntimeDefault');
      for (const container of allContainers(pod)) {
        expect(restrictedViolations(pod, container), `${object.metadata.name}/${container.name}`).toEqual([]);
        // The root filesystem is read-only: whatever writes (tsx's compile cache) writes to /tmp, an emptyDir.
        const tmp = container.volumeMounts?.find((m) => m.mountPath === '/tmp');
        expect(tmp, `${object.metadata.name}/${container.name}: /tmp`).toBeDefined();
        expect(pod.volumes?.find((v) => v.name === tmp!.name)?.emptyDir).toBeDefined();
      }
    }
  });

  it("runs as the Dockerfile's user", () => {
    const user = dockerfileUser();
    expect(user).toBeGreaterThan(0);
    for (const { pod } of workloads(render('default'))) {
      expect(pod.securityContext?.runAsUser).toBe(user);
      for (const container of allContainers(pod)) expect(container.securityContext?.runAsUser).toBe(user);
    }
  });

  it('the check finds what the profile forbids', () => {
    const pod: PodSpec = { securityContext: { runAsUser: 0 }, containers: [] };
    expect(restrictedViolations(pod, { name: 'c', image: 'i', securityContext: { capabilities: { add: ['SYS_ADMIN'] }, privileged: true } })).toEqual([
      'runAsNonRoot is not true',
      'runAsUser 0 is not a numeric non-root user',
      'allowPrivilegeEscalation is not false',
      'privileged',
      'capabilities do not drop ALL',
      'capabilities add SYS_ADMIN',
      'seccompProfile undefined',
      'the root filesystem is writable',
    ]);
  });
});
