import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';

describe('registration and hashing limits configuration', () => {
  it('defaults to 20 registrations per address and hour, 8 hashes in flight per address, 64 waiting overall', () => {
    const config = loadConfig({});
    expect(config.registrationPerIp).toBe(20);
    expect(config.hashing).toEqual({ perAddress: 8, queue: 64 });
  });

  it('reads the settings and rejects nonsense naming the variable', () => {
    const config = loadConfig({
      GATEHOUSE_REGISTRATION_PER_IP: '0',
      GATEHOUSE_HASH_PER_ADDRESS: '2',
      GATEHOUSE_HASH_QUEUE_MAX: '0',
    });
    expect(config.registrationPerIp).toBe(0);
    expect(config.hashing).toEqual({ perAddress: 2, queue: 0 });
    expect(() => loadConfig({ GATEHOUSE_HASH_PER_ADDRESS: '0' })).toThrow(/GATEHOUSE_HASH_PER_ADDRESS: /);
    expect(() => loadConfig({ GATEHOUSE_HASH_QUEUE_MAX: '-1' })).toThrow(/GATEHOUSE_HASH_QUEUE_MAX: /);
    expect(() => loadConfig({ GATEHOUSE_REGISTRATION_PER_IP: 'many' })).toThrow(ConfigError);
  });
});
