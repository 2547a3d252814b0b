import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';

describe('lockout configuration', () => {
  it('defaults to 5 failures per account, 50 per address, 300 seconds', () => {
    expect(loadConfig({}).lockout).toEqual({ maxAttempts: 5, ipMaxAttempts: 50, seconds: 300 });
  });

  it('reads the thresholds and rejects nonsense naming the variable', () => {
    expect(
      loadConfig({
        GATEHOUSE_LOCKOUT_MAX_ATTEMPTS: '3',
        GATEHOUSE_LOCKOUT_IP_MAX_ATTEMPTS: '9',
        GATEHOUSE_LOCKOUT_SECONDS: '60',
      }).lockout,
    ).toEqual({ maxAttempts: 3, ipMaxAttempts: 9, seconds: 60 });
    expect(() => loadConfig({ GATEHOUSE_LOCKOUT_MAX_ATTEMPTS: '0' })).toThrow(ConfigError);
    expect(() => loadConfig({ GATEHOUSE_LOCKOUT_SECONDS: 'soon' })).toThrow(/GATEHOUSE_LOCKOUT_SECONDS: /);
  });
});
