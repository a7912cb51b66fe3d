/**
 * The Kubernetes manifests as `kubectl kustomize` renders them, and what the tests ask of them: each
 * object checked against its schema (`kubernetes-models`, `@kubernetes-models/keda`), the pods'
 * containers with their effective security settings.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ScaledObject, TriggerAuthentication } from '@kubernetes-models/keda/keda.sh/v1alpha1';
import { Deployment } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { Job } from 'kubernetes-models/batch/v1';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import {
  ConfigMap,
  type IContainer,
  type IPodSpec,
  Namespace,
  PersistentVolumeClaim,
  Secret,
  Service,
  ServiceAccount,
} from 'kubernetes-models/v1';
import { parseAllDocuments } from 'yaml';

export const KUBERNETES_DIR = fileURLToPath(new URL('../../deploy/kubernetes', import.meta.url));

/** A rendered object, as plain data. */
export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  // biome-ignore lint/suspicious/noExplicitAny: the tests read fields of every kind
  spec?: any;
  data?: Record<string, string>;
}

/** Whether `kubectl` (with its built-in kustomize) is on the PATH. */
export function kubectlAvailable(): boolean {
  try {
    execFileSync('kubectl', ['version', '--client'], { stdio: 'ignore', timeout: 20_000 });
    return true;
  } catch {
    return false;
  }
}

/** `kubectl kustomize dir`, parsed. */
export function render(dir: string): Manifest[] {
  const output = execFileSync('kubectl', ['kustomize', dir], { encoding: 'utf8', timeout: 60_000 });
  return parseAllDocuments(output).map((document) => {
    if (document.errors.length > 0) throw document.errors[0];
    return document.toJS() as Manifest;
  });
}

/**
 * A copy of deploy/kubernetes in a temporary folder where every example builds: the production
 * overlay's git-ignored env files made from the examples, and an overlay that adds the
 * prometheus-scaling component to the base. `remove` deletes the copy.
 */
export function exampleTree(): { dir: string; remove(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentjobs-kube-'));
  fs.cpSync(KUBERNETES_DIR, dir, { recursive: true });
  const production = path.join(dir, 'overlays/production');
  fs.copyFileSync(path.join(dir, 'base/secrets.example.env'), path.join(production, 'secrets.env'));
  fs.copyFileSync(path.join(dir, 'base/keda.example.env'), path.join(production, 'keda.env'));
  const prometheus = path.join(dir, 'overlays/prometheus');
  fs.mkdirSync(prometheus);
  fs.writeFileSync(
    path.join(prometheus, 'kustomization.yaml'),
    'resources:\n  - ../../base\ncomponents:\n  - ../../components/prometheus-scaling\n',
  );
  return { dir, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

// biome-ignore lint/suspicious/noExplicitAny: each model takes its own kind's data
const MODELS: Record<string, new (data: any) => { validate(): void }> = {
  'v1/Namespace': Namespace,
  'v1/ServiceAccount': ServiceAccount,
  'v1/ConfigMap': ConfigMap,
  'v1/Secret': Secret,
  'v1/Service': Service,
  'v1/PersistentVolumeClaim': PersistentVolumeClaim,
  'apps/v1/Deployment': Deployment,
  'batch/v1/Job': Job,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
  'keda.sh/v1alpha1/ScaledObject': ScaledObject,
  'keda.sh/v1alpha1/TriggerAuthentication': TriggerAuthentication,
};

/** Checks `manifest` against its kind's schema; throws naming the object and the first problem. */
export function validateManifest(manifest: Manifest): void {
  const key = `${manifest.apiVersion}/${manifest.kind}`;
  const Model = MODELS[key];
  if (!Model) throw new Error(`${key} ${manifest.metadata.name}: no schema known for this kind`);
  // kustomize folds a long Secret value over lines; the API server's base64 reader skips the line
  // breaks, the schema's "byte" format does not.
  const data =
    manifest.kind === 'Secret' && manifest.data
      ? {
          ...manifest,
          data: Object.fromEntries(
            Object.entries(manifest.data).map(([key, value]) => [key, value.replace(/\s+/g, '')]),
          ),
        }
      : manifest;
  try {
    new Model(data).validate();
  } catch (error) {
    throw new Error(`${key} ${manifest.metadata.name}: ${(error as Error).message}`);
  }
}

/** A container of a workload with the pod it runs in. */
export interface PodContainer {
  workload: string;
  pod: IPodSpec;
  container: IContainer;
}

/** Every container (init containers too) of the Deployments and Jobs in `manifests`. */
export function podContainers(manifests: Manifest[]): PodContainer[] {
  return manifests
    .filter((manifest) => manifest.kind === 'Deployment' || manifest.kind === 'Job')
    .flatMap((manifest) => {
      const pod = manifest.spec.template.spec as IPodSpec;
      return [...(pod.initContainers ?? []), ...pod.containers].map((container) => ({
        workload: `${manifest.kind}/${manifest.metadata.name}`,
        pod,
        container,
      }));
    });
}

/** A container's security setting as it takes effect: its own, else its pod's. */
export function effective<K extends 'runAsNonRoot' | 'runAsUser' | 'runAsGroup' | 'seccompProfile'>(
  { pod, container }: PodContainer,
  field: K,
) {
  return container.securityContext?.[field] ?? pod.securityContext?.[field];
}

/** `KEY=value` lines of an env file (as kustomize reads them: `#` lines skipped). */
export function readEnvFile(file: string): Record<string, string> {
  const entries = fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.trimStart().startsWith('#'))
    .map((line) => {
      const at = line.indexOf('=');
      return [line.slice(0, at), line.slice(at + 1)] as const;
    });
  return Object.fromEntries(entries);
}

/** The one object of `kind` named `name`; throws when there is none. */
export function find(manifests: Manifest[], kind: string, name: string): Manifest {
  const found = manifests.find((manifest) => manifest.kind === kind && manifest.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name} in the rendered manifests`);
  return found;
}
