// The deployment files of docs/operations.md ("Deploying it"): deploy/kubernetes/ against the Kubernetes schemas
// (kubernetes-models ships validators generated from Kubernetes' OpenAPI schemas, so this runs offline), and
// docker-compose.ha.yml structurally (Docker is not available to the test suite): its services, the files it mounts,
// and the settings it shares with the tested topology (test/helpers/cluster.ts).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Service } from 'kubernetes-models/v1/Service';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { DEPLOY_DIR, NODE_SETTINGS } from '../helpers/cluster.ts';
import { deployedSettings } from '../helpers/pgbouncer.ts';

const ROOT = join(DEPLOY_DIR, '..');
const MODELS = { Deployment, Service, PodDisruptionBudget };
type Kind = keyof typeof MODELS;

/** Every document of deploy/kubernetes/*.yaml, validated against its kind's schema (throws on the first error). */
function kubernetesManifests() {
  const dir = join(DEPLOY_DIR, 'kubernetes');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .flatMap((f) => parseAllDocuments(readFileSync(join(dir, f), 'utf8')).map((d) => d.toJS()))
    .map((doc) => {
      const Model = MODELS[doc.kind as Kind];
      if (!Model) throw new Error(`deploy/kubernetes: unexpected kind ${doc.kind}`);
      const model = new Model(doc);
      model.validate();
      return model;
    });
}

describe('deploy/kubernetes', () => {
  it('holds a Deployment, a Service and a PodDisruptionBudget that the Kubernetes schemas accept', () => {
    expect(
      kubernetesManifests()
        .map((m) => m.kind)
        .sort(),
    ).toEqual(['Deployment', 'PodDisruptionBudget', 'Service']);
  });

  it('the schema check fails on a manifest Kubernetes would refuse', () => {
    const deployment = kubernetesManifests().find((m) => m.kind === 'Deployment')!;
    const broken = structuredClone(deployment.toJSON()) as { spec: { replicas: unknown } };
    broken.spec.replicas = 'three';
    expect(() => new Deployment(broken as never).validate()).toThrow(/replicas must be integer/);
  });

  it('probes /readyz and /healthz, drains as the tested nodes do, and selects its own pods everywhere', () => {
    const manifests = kubernetesManifests();
    const deployment = manifests.find((m) => m.kind === 'Deployment') as Deployment;
    const pod = deployment.spec!.template.spec!;
    const container = pod.containers[0]!;
    expect(container.readinessProbe?.httpGet?.path).toBe('/readyz');
    expect(container.livenessProbe?.httpGet?.path).toBe('/healthz');
    expect(container.startupProbe?.httpGet?.path).toBe('/healthz');
    const env = Object.fromEntries((container.env ?? []).map((e) => [e.name, e.value]));
    expect(env).toMatchObject(NODE_SETTINGS);
    // the drain and the in-flight requests (GATEHOUSE_SHUTDOWN_TIMEOUT_MS, 10 s) fit in the grace period
    expect(pod.terminationGracePeriodSeconds! * 1000).toBeGreaterThan(
      Number(NODE_SETTINGS.GATEHOUSE_SHUTDOWN_DRAIN_MS) + 10_000,
    );
    expect(deployment.spec!.strategy?.rollingUpdate?.maxUnavailable).toBe(0);
    const labels = deployment.spec!.template.metadata!.labels!;
    expect(deployment.spec!.selector.matchLabels).toEqual(labels);
    expect((manifests.find((m) => m.kind === 'Service') as Service).spec!.selector).toEqual(labels);
    expect(
      (manifests.find((m) => m.kind === 'PodDisruptionBudget') as PodDisruptionBudget).spec!.selector!.matchLabels,
    ).toEqual(labels);
  });
});

interface ComposeService {
  image?: string;
  build?: string;
  environment?: Record<string, string>;
  configs?: { source: string; target: string }[];
  networks?: Record<string, { ipv4_address?: string }> | string[];
}

describe('docker-compose.ha.yml', () => {
  // the variables an operator sets (.env), here with a stand-in value, as `docker compose config` would interpolate
  const text = readFileSync(join(ROOT, 'docker-compose.ha.yml'), 'utf8').replace(/\$\{(\w+)(?::?[-?][^}]*)?\}/g, 'x');
  const compose = parse(text) as {
    services: Record<string, ComposeService>;
    configs: Record<string, { file?: string; content?: string }>;
  };
  const services = compose.services;
  const nodes = Object.keys(services).filter((name) => /^gatehouse\d+$/.test(name));

  it('runs three nodes, HAProxy, PgBouncer and PostgreSQL in the versions the tests run', () => {
    expect(Object.keys(services).sort()).toEqual([
      'gatehouse1',
      'gatehouse2',
      'gatehouse3',
      'haproxy',
      'pgbouncer',
      'postgres',
    ]);
    expect(services.haproxy!.image).toBe('haproxy:2.6'); // Debian 12's HAProxy
    expect(services.postgres!.image).toBe('postgres:15');
    expect(readFileSync(join(ROOT, services.pgbouncer!.build!, 'Dockerfile'), 'utf8')).toMatch(
      /FROM debian:bookworm-slim[\s\S]*apt-get install .*pgbouncer/, // Debian 12's PgBouncer 1.18
    );
  });

  it('mounts the config files the tests run, and every file it names exists', () => {
    const mounted = (service: string, target: string) =>
      compose.configs[services[service]!.configs!.find((c) => c.target === target)!.source]!;
    expect(mounted('haproxy', '/usr/local/etc/haproxy/haproxy.cfg').file).toBe('deploy/haproxy.cfg');
    expect(mounted('pgbouncer', '/etc/pgbouncer/pgbouncer.ini').file).toBe('deploy/pgbouncer.ini');
    expect(mounted('pgbouncer', '/etc/pgbouncer/userlist.txt').content).toContain('"gatehouse"');
    for (const config of Object.values(compose.configs))
      if (config.file) expect(existsSync(join(ROOT, config.file)), config.file).toBe(true);
  });

  it('gives HAProxy every address its config reads, one server line per node', () => {
    const cfg = readFileSync(join(DEPLOY_DIR, 'haproxy.cfg'), 'utf8');
    const variables = [...cfg.matchAll(/"\$\{(\w+)\}"/g)].map((m) => m[1]!);
    const env = services.haproxy!.environment!;
    expect(Object.keys(env).sort()).toEqual([...new Set(variables)].sort());
    const servers = [...cfg.matchAll(/^\s*server (\S+) "\$\{(\w+)\}"/gm)].map((m) => env[m[2]!]);
    expect(servers).toEqual(nodes.map((node) => `${node}:8080`));
  });

  it('runs every node as the tests do: through PgBouncer, migrations direct, draining, trusting HAProxy', () => {
    const listenPort = /^listen_port = (\d+)/m.exec(readFileSync(join(DEPLOY_DIR, 'pgbouncer.ini'), 'utf8'))![1];
    expect(deployedSettings(join(DEPLOY_DIR, 'pgbouncer.ini'))).toMatchObject({ pool_mode: 'transaction' });
    const haproxyAddress = (services.haproxy!.networks as Record<string, { ipv4_address: string }>).gatehouse!
      .ipv4_address;
    for (const node of nodes) {
      const env = services[node]!.environment!;
      expect(env).toMatchObject(NODE_SETTINGS);
      expect(new URL(env.DATABASE_URL!).host).toBe(`pgbouncer:${listenPort}`);
      expect(new URL(env.GATEHOUSE_DATABASE_DIRECT_URL!).host).toBe('postgres:5432');
      expect(env.GATEHOUSE_TRUSTED_PROXIES).toBe(haproxyAddress);
    }
  });
});
