import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  effective,
  exampleTree,
  find,
  KUBERNETES_DIR,
  kubectlAvailable,
  type Manifest,
  podContainers,
  readEnvFile,
  render,
  validateManifest,
} from './manifests.js';

const hasKubectl = kubectlAvailable();
if (!hasKubectl) {
  if (process.env.AGENTJOBS_REQUIRE_KUBECTL === '1')
    throw new Error('AGENTJOBS_REQUIRE_KUBECTL=1 but there is no kubectl on the PATH.');
  console.log('Kubernetes manifest tests skipped: no kubectl on the PATH (apt-get install kubectl).');
}

const config = readEnvFile(path.join(KUBERNETES_DIR, 'base/config.env'));
/** The exit margin a stopping process adds to its jobs' grace before it exits regardless. */
const EXIT_MARGIN_SECONDS = 5;

// What deploy/kubernetes promises (docs/deploy.md), read from what `kubectl kustomize` renders:
// the base, the base with the prometheus-scaling component, and the two example overlays.
describe.skipIf(!hasKubectl)('the Kubernetes manifests', () => {
  let tree: ReturnType<typeof exampleTree>;
  let renders: Record<'base' | 'prometheus' | 'production' | 'demo' | 'kube-play', Manifest[]>;
  let base: Manifest[];

  beforeAll(() => {
    tree = exampleTree();
    base = render(KUBERNETES_DIR);
    renders = {
      base,
      prometheus: render(path.join(tree.dir, 'overlays/prometheus')),
      production: render(path.join(tree.dir, 'overlays/production')),
      demo: render(path.join(tree.dir, 'overlays/demo')),
      'kube-play': render(path.join(tree.dir, 'overlays/kube-play')),
    };
  });
  afterAll(() => tree?.remove());

  const all = () => Object.entries(renders);

  it('build with kubectl kustomize, and every object validates against the Kubernetes and KEDA schemas', () => {
    expect(
      base
        .map((manifest) => `${manifest.kind}/${manifest.metadata.name.replace(/-[a-z0-9]{10}$/, '')}`)
        .sort(),
    ).toEqual([
      'ConfigMap/agentjobs-config',
      'Deployment/agentjobs-api',
      'Deployment/agentjobs-worker',
      'HorizontalPodAutoscaler/agentjobs-api',
      'Job/agentjobs-migrate',
      'NetworkPolicy/agentjobs-api',
      'NetworkPolicy/agentjobs-migrate',
      'NetworkPolicy/agentjobs-worker',
      'PodDisruptionBudget/agentjobs-api',
      'PodDisruptionBudget/agentjobs-worker',
      'ScaledObject/agentjobs-worker',
      'Secret/agentjobs-keda',
      'Secret/agentjobs-secrets',
      'Service/agentjobs-api',
      'ServiceAccount/agentjobs',
      'TriggerAuthentication/agentjobs-keda',
    ]);
    for (const [, manifests] of all()) for (const manifest of manifests) validateManifest(manifest);
  });

  it('run every container as uid 10001, non-root, on a read-only root, with no capability and no privilege', () => {
    for (const [name, manifests] of all()) {
      const containers = podContainers(manifests);
      expect(containers.length, name).toBeGreaterThan(0);
      for (const entry of containers) {
        const where = `${name}: ${entry.workload}/${entry.container.name}`;
        const security = entry.container.securityContext ?? {};
        expect(effective(entry, 'runAsNonRoot'), where).toBe(true);
        expect(effective(entry, 'runAsUser'), where).toBe(10001);
        expect(security.readOnlyRootFilesystem, where).toBe(true);
        expect(security.allowPrivilegeEscalation, where).toBe(false);
        expect(security.privileged, where).not.toBe(true);
        expect(security.capabilities?.drop, where).toEqual(['ALL']);
        expect(security.capabilities?.add ?? [], where).toEqual([]);
        expect(entry.pod.hostPID || entry.pod.hostIPC || entry.pod.hostNetwork, where).toBeFalsy();
        expect(entry.pod.automountServiceAccountToken, where).toBe(false);
        // What is writable: the data volume and /tmp, from volumes, never the image.
        const mounts = Object.fromEntries(
          (entry.container.volumeMounts ?? []).map((m) => [m.mountPath, m.name]),
        );
        expect(Object.keys(mounts).sort(), where).toEqual(['/tmp', '/var/lib/agentjobs']);
        const volumes = entry.pod.volumes ?? [];
        for (const volume of Object.values(mounts)) {
          const found = volumes.find((candidate) => candidate.name === volume);
          expect(found?.emptyDir ?? found?.persistentVolumeClaim, `${where}: volume ${volume}`).toBeDefined();
          expect(found?.hostPath, `${where}: volume ${volume}`).toBeUndefined();
        }
        expect(entry.container.resources?.requests?.memory, where).toBeDefined();
        expect(entry.container.resources?.requests?.cpu, where).toBeDefined();
        expect(entry.container.resources?.limits?.memory, where).toBeDefined();
      }
    }
  });

  it('confine the api and migrate pods with seccomp RuntimeDefault, and the worker with its Localhost profile and what it needs', () => {
    for (const [name, manifests] of all()) {
      for (const entry of podContainers(manifests)) {
        const where = `${name}: ${entry.workload}`;
        if (entry.workload === 'Deployment/agentjobs-worker') {
          expect(effective(entry, 'seccompProfile'), where).toEqual({
            type: 'Localhost',
            localhostProfile: 'agentjobs-worker.json',
          });
          // Kubernetes accepts an unmasked /proc only in a pod with its own user namespace; podman
          // kube play gets its user namespace from its own options instead.
          expect(entry.container.securityContext?.procMount, where).toBe('Unmasked');
          expect(entry.pod.hostUsers, where).toBe(name === 'kube-play' ? undefined : false);
        } else {
          expect(effective(entry, 'seccompProfile'), where).toEqual({ type: 'RuntimeDefault' });
          expect(entry.container.securityContext?.procMount, where).toBeUndefined();
          expect(entry.pod.securityContext?.appArmorProfile, where).toBeUndefined();
        }
      }
    }
  });

  it('probe /healthz for liveness and /readyz for readiness: the api on its HTTP port, the worker on AGENTJOBS_HEALTH_PORT', () => {
    const probes = (manifest: Manifest) => {
      const [container] = manifest.spec.template.spec.containers;
      const port = (name: string) => container.ports.find((entry: { name: string }) => entry.name === name);
      const of = (probe: { httpGet: { path: string; port: string } }) => ({
        path: probe.httpGet.path,
        port: port(probe.httpGet.port)?.containerPort,
      });
      return {
        env: Object.fromEntries(
          container.env.map((entry: { name: string; value: string }) => [entry.name, entry.value]),
        ),
        startup: of(container.startupProbe),
        liveness: of(container.livenessProbe),
        readiness: of(container.readinessProbe),
      };
    };
    const api = probes(find(base, 'Deployment', 'agentjobs-api'));
    const port = Number(config.PORT);
    expect(api).toMatchObject({
      startup: { path: '/healthz', port },
      liveness: { path: '/healthz', port },
      readiness: { path: '/readyz', port },
    });
    const worker = probes(find(base, 'Deployment', 'agentjobs-worker'));
    const health = Number(worker.env.AGENTJOBS_HEALTH_PORT);
    expect(health).toBeGreaterThan(0);
    expect(worker).toMatchObject({
      startup: { path: '/healthz', port: health },
      liveness: { path: '/healthz', port: health },
      readiness: { path: '/readyz', port: health },
    });
    const demo = probes(find(renders.demo, 'Deployment', 'agentjobs-api'));
    expect(demo.readiness).toEqual({ path: '/readyz', port });
  });

  it('give a stopping pod time for the drain, its jobs’ grace and the exit margin before the kubelet kills it', () => {
    for (const [name, manifests] of all()) {
      for (const manifest of manifests.filter((entry) => entry.kind === 'Deployment')) {
        const pod = manifest.spec.template.spec;
        const env = Object.fromEntries(
          (pod.containers[0].env ?? []).map((entry: { name: string; value: string }) => [
            entry.name,
            entry.value,
          ]),
        );
        const grace = Number(env.AGENTJOBS_SHUTDOWN_GRACE_SECONDS ?? 30);
        const needed = Number(config.AGENTJOBS_DRAIN_SECONDS) + grace + EXIT_MARGIN_SECONDS;
        expect(
          pod.terminationGracePeriodSeconds,
          `${name}: ${manifest.metadata.name}`,
        ).toBeGreaterThanOrEqual(needed);
      }
    }
  });

  it('scale the workers with KEDA on the jobs to run in PostgreSQL, or on max(agentjobs_jobs_queued) with metricType Value', () => {
    const scaled = find(base, 'ScaledObject', 'agentjobs-worker');
    expect(scaled.spec.scaleTargetRef).toMatchObject({ kind: 'Deployment', name: 'agentjobs-worker' });
    const [postgres, ...others] = scaled.spec.triggers;
    expect(others).toEqual([]);
    expect(postgres).toMatchObject({
      type: 'postgresql',
      metricType: 'AverageValue',
      authenticationRef: { name: 'agentjobs-keda' },
      // A worker's share of the fleet-wide count: the jobs it runs at once.
      metadata: { targetQueryValue: config.AGENTJOBS_WORKER_CONCURRENCY },
    });
    // The cap per project is the service's own.
    expect(postgres.metadata.query).toContain(`LEAST(wanting, ${config.AGENTJOBS_PROJECT_CONCURRENCY})`);
    const authentication = find(base, 'TriggerAuthentication', 'agentjobs-keda');
    const secret = base.find(
      (manifest) => manifest.metadata.name === authentication.spec.secretTargetRef[0].name,
    );
    expect(secret?.kind).toBe('Secret');
    expect(Object.keys(secret?.data ?? {})).toEqual(['connection']);

    const prometheus = find(renders.prometheus, 'ScaledObject', 'agentjobs-worker');
    expect(prometheus.spec.triggers).toEqual([
      expect.objectContaining({
        type: 'prometheus',
        metricType: 'Value',
        metadata: expect.objectContaining({ query: 'max(agentjobs_jobs_queued)' }),
      }),
    ]);
    // KEDA's fallback applies to AverageValue targets only: left on, it would mislead.
    expect(prometheus.spec.fallback).toBeUndefined();
    expect(renders.prometheus.map((manifest) => manifest.kind)).not.toContain('TriggerAuthentication');
  });

  it('let requests reach the api on its port only, nothing reach a worker, and workers reach only DNS, the database and HTTPS', () => {
    const policy = (manifests: Manifest[], name: string) => find(manifests, 'NetworkPolicy', name).spec;
    const ports = (rules: { ports?: { protocol: string; port: number }[] }[]) =>
      rules
        .flatMap((rule) =>
          (rule.ports ?? [{ protocol: 'any', port: 0 }]).map((p) => `${p.protocol}/${p.port}`),
        )
        .sort();

    const api = policy(base, 'agentjobs-api');
    expect(api.podSelector.matchLabels).toMatchObject({ 'app.kubernetes.io/component': 'api' });
    expect(api.policyTypes).toContain('Ingress');
    expect(ports(api.ingress)).toEqual([`TCP/${config.PORT}`]);

    for (const name of ['agentjobs-worker', 'agentjobs-migrate']) {
      const rules = policy(base, name);
      expect(rules.podSelector.matchLabels).toMatchObject({
        'app.kubernetes.io/component': name.replace('agentjobs-', ''),
      });
      expect(rules.policyTypes).toEqual(['Ingress', 'Egress']);
      expect(rules.ingress ?? []).toEqual([]);
      const dns = rules.egress.find((rule: { to?: unknown[] }) => rule.to);
      expect(dns.to).toEqual([
        { namespaceSelector: {}, podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } } },
      ]);
      expect(ports(rules.egress)).toEqual(
        name === 'agentjobs-worker'
          ? ['TCP/443', 'TCP/53', 'TCP/5432', 'UDP/53']
          : ['TCP/53', 'TCP/5432', 'UDP/53'],
      );
    }
    // No other policy in the base opens the workers (the prometheus component adds its scrape).
    const workerPolicies = (manifests: Manifest[]) =>
      manifests
        .filter((manifest) => manifest.kind === 'NetworkPolicy')
        .filter(
          (manifest) => manifest.spec.podSelector.matchLabels['app.kubernetes.io/component'] === 'worker',
        )
        .map((manifest) => manifest.metadata.name);
    expect(workerPolicies(base)).toEqual(['agentjobs-worker']);
    expect(ports(policy(renders.prometheus, 'agentjobs-worker-scrape').ingress)).toEqual(['TCP/9090']);
  });

  it('select their own pods: every Service, PDB, HPA and policy finds the pods it means', () => {
    const deployments = base.filter((manifest) => manifest.kind === 'Deployment' || manifest.kind === 'Job');
    const labelsOf = (manifest: Manifest) => manifest.spec.template.metadata.labels as Record<string, string>;
    const matches = (selector: Record<string, string>) =>
      deployments
        .filter((manifest) =>
          Object.entries(selector).every(([key, value]) => labelsOf(manifest)[key] === value),
        )
        .map((manifest) => manifest.metadata.name);
    expect(matches(find(base, 'Service', 'agentjobs-api').spec.selector)).toEqual(['agentjobs-api']);
    for (const name of ['agentjobs-api', 'agentjobs-worker']) {
      expect(matches(find(base, 'PodDisruptionBudget', name).spec.selector.matchLabels)).toEqual([name]);
      expect(matches(find(base, 'NetworkPolicy', name).spec.podSelector.matchLabels)).toEqual([name]);
    }
    // An autoscaler owns these counts: a replicas field would reset them on every apply.
    for (const name of ['agentjobs-api', 'agentjobs-worker'])
      expect(find(base, 'Deployment', name).spec.replicas, name).toBeUndefined();
    expect(find(base, 'HorizontalPodAutoscaler', 'agentjobs-api').spec).toMatchObject({
      scaleTargetRef: { kind: 'Deployment', name: 'agentjobs-api' },
      metrics: [{ type: 'Resource', resource: { name: 'cpu' } }],
    });
  });

  it('take the image from the kustomize images entry, and the settings from the ConfigMap and the example Secret', () => {
    for (const entry of podContainers(base)) expect(entry.container.image).toBe('agentjobs:0.1.0');
    for (const entry of podContainers(renders.production))
      expect(entry.container.image).toBe('registry.example.com/agentjobs:0.1.0');
    const roles = podContainers(base).map((entry) => entry.container.args);
    expect(roles).toEqual(expect.arrayContaining([['api'], ['worker'], ['migrate']]));
    expect(podContainers(renders.demo).map((entry) => entry.container.args)).toEqual([['serve']]);
    // The example Secrets hold no real value: each is empty or a placeholder.
    for (const secret of base.filter((manifest) => manifest.kind === 'Secret')) {
      for (const [key, encoded] of Object.entries(secret.data ?? {})) {
        const value = Buffer.from(encoded, 'base64').toString('utf8');
        expect(value === '' || value.includes('CHANGE-ME'), `${secret.metadata.name} ${key}`).toBe(true);
      }
    }
    const secretKey = find(
      base,
      'Secret',
      base.find((m) => m.metadata.name.startsWith('agentjobs-secrets'))?.metadata.name ?? '',
    );
    // Too short to be accepted: nothing starts until an operator puts a real key there.
    expect(Buffer.from(secretKey.data?.AGENTJOBS_SECRET_KEY ?? '', 'base64').length).toBeLessThan(32);
  });
});
