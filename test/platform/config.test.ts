import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';

describe('loadConfig', () => {
  it('applies defaults: port 8080, embedded database under ./data, issuer on localhost', () => {
    const config = loadConfig({});
    expect(config.port).toBe(8080);
    expect(config.issuer).toBe('http://localhost:8080');
    expect(config.instanceDomain).toBe('localhost');
    expect(config.database).toEqual({ kind: 'embedded', dataDir: './data' });
    expect(config.ttl.accessToken).toBe(43200);
    expect(config.ttl.authorizationCode).toBe(60);
    expect(config.ttl.interaction).toBe(600);
    expect(config.authorizePerIp).toBe(300);
    expect(config.logFormat).toBe('auto');
    expect(Object.isFrozen(config) && Object.isFrozen(config.ttl)).toBe(true);
  });

  it('uses PostgreSQL when DATABASE_URL is set, and then requires the master key', () => {
    expect(() => loadConfig({ DATABASE_URL: 'postgres://u@127.0.0.1/db' })).toThrow(
      /GATEHOUSE_MASTER_KEY: is required/,
    );
    const config = loadConfig({
      DATABASE_URL: 'postgres://u@127.0.0.1/db',
      GATEHOUSE_MASTER_KEY: 'k'.repeat(32),
      DATABASE_POOL_SIZE: '7',
      GATEHOUSE_WORKERS: '1',
    });
    expect(config.database).toMatchObject({ kind: 'postgres', poolSize: 7 });
  });

  describe('GATEHOUSE_WORKERS', () => {
    const postgres = { DATABASE_URL: 'postgres://u@127.0.0.1/db', GATEHOUSE_MASTER_KEY: 'k'.repeat(32) };

    it('defaults to the cores on PostgreSQL, at most the pool budget, and to 1 on the embedded database', () => {
      expect(loadConfig(postgres).workers).toBe(Math.min(availableParallelism(), 10));
      expect(loadConfig({ ...postgres, DATABASE_POOL_SIZE: '1' }).workers).toBe(1);
      expect(loadConfig({}).workers).toBe(1);
    });

    it('divides DATABASE_POOL_SIZE among the workers: the budget of all of them together', () => {
      const config = loadConfig({ ...postgres, DATABASE_POOL_SIZE: '10', GATEHOUSE_WORKERS: '3' });
      expect(config.workers).toBe(3);
      expect(config.database).toMatchObject({ poolSize: 3 });
    });

    it.each([
      [{ GATEHOUSE_WORKERS: '2' }, /GATEHOUSE_WORKERS: must be 1 with the embedded database/],
      [{ ...postgres, GATEHOUSE_WORKERS: '11' }, /GATEHOUSE_WORKERS: must be at most DATABASE_POOL_SIZE \(10\)/],
      [{ ...postgres, GATEHOUSE_WORKERS: '0' }, /GATEHOUSE_WORKERS: /],
      [{ ...postgres, GATEHOUSE_WORKERS: 'all' }, /GATEHOUSE_WORKERS: /],
    ])('refuses %j', (env, message) => {
      expect(() => loadConfig(env)).toThrow(message);
    });

    it('takes 1 on the embedded database', () => {
      expect(loadConfig({ GATEHOUSE_WORKERS: '1' }).workers).toBe(1);
    });
  });

  it('reads the pooling mode and the direct URL, session pooling by default', () => {
    const base = { DATABASE_URL: 'postgres://u@pooler:6432/db', GATEHOUSE_MASTER_KEY: 'k'.repeat(32) };
    expect(loadConfig(base).database).toMatchObject({ pooling: 'session', directUrl: undefined });
    expect(
      loadConfig({
        ...base,
        GATEHOUSE_DB_POOLING: 'transaction',
        GATEHOUSE_DATABASE_DIRECT_URL: 'postgres://u@db:5432/db',
      }).database,
    ).toMatchObject({
      url: 'postgres://u@pooler:6432/db',
      pooling: 'transaction',
      directUrl: 'postgres://u@db:5432/db',
    });
  });

  it.each([
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ GATEHOUSE_ISSUER: 'ftp://x' }, 'GATEHOUSE_ISSUER'],
    [{ GATEHOUSE_ISSUER: 'https://id.example.com/tenant' }, 'GATEHOUSE_ISSUER'],
    [{ GATEHOUSE_MASTER_KEY: 'short' }, 'GATEHOUSE_MASTER_KEY'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ GATEHOUSE_LOG_FORMAT: 'xml' }, 'GATEHOUSE_LOG_FORMAT'],
    [{ GATEHOUSE_DB_POOLING: 'statement' }, 'GATEHOUSE_DB_POOLING'],
    [{ GATEHOUSE_DATABASE_DIRECT_URL: 'mysql://x' }, 'GATEHOUSE_DATABASE_DIRECT_URL'],
    [{ GATEHOUSE_ADMIN_PASSWORD: 'short' }, 'GATEHOUSE_ADMIN_PASSWORD'],
    [{ GATEHOUSE_METRICS_ADDRESS: '9464' }, 'GATEHOUSE_METRICS_ADDRESS'],
    [{ GATEHOUSE_METRICS_ADDRESS: '127.0.0.1' }, 'GATEHOUSE_METRICS_ADDRESS'],
    [{ GATEHOUSE_METRICS_ADDRESS: '127.0.0.1:0' }, 'GATEHOUSE_METRICS_ADDRESS'],
    [{ GATEHOUSE_METRICS_ADDRESS: '127.0.0.1:9464/metrics' }, 'GATEHOUSE_METRICS_ADDRESS'],
    [{ GATEHOUSE_METRICS_ADDRESS: 'http://127.0.0.1:9464' }, 'GATEHOUSE_METRICS_ADDRESS'],
    [{ GATEHOUSE_INTERACTION_TTL: '3601' }, 'GATEHOUSE_INTERACTION_TTL'],
    [{ GATEHOUSE_INTERACTION_TTL: '0' }, 'GATEHOUSE_INTERACTION_TTL'],
    [{ GATEHOUSE_AUTHORIZE_PER_IP: '-1' }, 'GATEHOUSE_AUTHORIZE_PER_IP'],
  ])('rejects %o naming %s', (env, variable) => {
    expect(() => loadConfig(env as NodeJS.ProcessEnv)).toThrow(ConfigError);
    expect(() => loadConfig(env as NodeJS.ProcessEnv)).toThrow(new RegExp(`${variable}: `));
  });

  it('takes the issuer from configuration and strips a trailing slash', () => {
    const config = loadConfig({ GATEHOUSE_ISSUER: 'https://id.example.com/' });
    expect(config.issuer).toBe('https://id.example.com');
    expect(config.instanceDomain).toBe('id.example.com');
  });

  it('reads GATEHOUSE_METRICS_ADDRESS as host and port (IPv6 without brackets); unset keeps /metrics on the public port', () => {
    expect(loadConfig({}).metricsAddress).toBeUndefined();
    expect(loadConfig({ GATEHOUSE_METRICS_ADDRESS: '127.0.0.1:9464' }).metricsAddress).toEqual({
      host: '127.0.0.1',
      port: 9464,
    });
    expect(loadConfig({ GATEHOUSE_METRICS_ADDRESS: '[::1]:80' }).metricsAddress).toEqual({ host: '::1', port: 80 });
  });

  it('bounds the transport settings: request timeout, HTTP/2 streams, authorization request size', () => {
    expect(loadConfig({}).http).toEqual({ requestTimeoutMs: 30_000, http2MaxConcurrentStreams: 100 });
    expect(loadConfig({}).authorizeMaxBytes).toBe(8192);
    expect(() => loadConfig({ GATEHOUSE_AUTHORIZE_MAX_BYTES: '65536' })).toThrow(/GATEHOUSE_AUTHORIZE_MAX_BYTES/);
    expect(() => loadConfig({ GATEHOUSE_HTTP2_MAX_CONCURRENT_STREAMS: '0' })).toThrow(
      /GATEHOUSE_HTTP2_MAX_CONCURRENT_STREAMS/,
    );
    expect(() => loadConfig({ GATEHOUSE_REQUEST_TIMEOUT_MS: 'soon' })).toThrow(/GATEHOUSE_REQUEST_TIMEOUT_MS/);
  });
});
