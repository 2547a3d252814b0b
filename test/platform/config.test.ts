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
    });
    expect(config.database).toMatchObject({ kind: 'postgres', poolSize: 7 });
  });

  it.each([
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ GATEHOUSE_ISSUER: 'ftp://x' }, 'GATEHOUSE_ISSUER'],
    [{ GATEHOUSE_ISSUER: 'https://id.example.com/tenant' }, 'GATEHOUSE_ISSUER'],
    [{ GATEHOUSE_MASTER_KEY: 'short' }, 'GATEHOUSE_MASTER_KEY'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
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

  it('reads GATEHOUSE_METRICS_ADDRESS as host and port (IPv6 without brackets); unset keeps /metrics on the public \
port', () => {
    expect(loadConfig({}).metricsAddress).toBeUndefined();
    expect(loadConfig({ GATEHOUSE_METRICS_ADDRESS: '127.0.0.1:9464' }).metricsAddress).toEqual({
      host: '127.0.0.1',
      port: 9464,
    });
    expect(loadConfig({ GATEHOUSE_METRICS_ADDRESS: '[::1]:80' }).metricsAddress).toEqual({ host: '::1', port: 80 });
  });

  it('bounds the transport settings (issue 26): request timeout, HTTP/2 streams, authorization request size', () => {
    expect(loadConfig({}).http).toEqual({ requestTimeoutMs: 30_000, http2MaxConcurrentStreams: 100 });
    expect(loadConfig({}).authorizeMaxBytes).toBe(8192);
    expect(() => loadConfig({ GATEHOUSE_AUTHORIZE_MAX_BYTES: '65536' })).toThrow(/GATEHOUSE_AUTHORIZE_MAX_BYTES/);
    expect(() => loadConfig({ GATEHOUSE_HTTP2_MAX_CONCURRENT_STREAMS: '0' })).toThrow(
      /GATEHOUSE_HTTP2_MAX_CONCURRENT_STREAMS/,
    );
    expect(() => loadConfig({ GATEHOUSE_REQUEST_TIMEOUT_MS: 'soon' })).toThrow(/GATEHOUSE_REQUEST_TIMEOUT_MS/);
  });
});
