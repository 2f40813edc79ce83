import { describe, expect, it } from 'vitest';
import { isWildcardHost, urlHost } from './server';

describe('the sandbox URL for a listen address (banner, ready file, startServer().url)', () => {
  it('names the loopback of the same family for a wildcard: something a client can call', () => {
    expect(urlHost('0.0.0.0')).toBe('127.0.0.1');
    for (const host of ['::', '[::]', '::0', '0:0:0:0:0:0:0:0']) expect(urlHost(host), host).toBe('[::1]');
    for (const host of ['0.0.0.0', '::', '[::]']) expect(isWildcardHost(host), host).toBe(true);
  });

  it('keeps any other address, IPv6 in brackets', () => {
    expect(urlHost('127.0.0.1')).toBe('127.0.0.1');
    expect(urlHost('localhost')).toBe('localhost');
    expect(urlHost('192.168.1.5')).toBe('192.168.1.5');
    expect(urlHost('::1')).toBe('[::1]');
    expect(urlHost('[fd00::1]')).toBe('[fd00::1]');
    expect(urlHost('fd00::1')).toBe('[fd00::1]');
    for (const host of ['127.0.0.1', '::1', 'localhost', '0.0.0.1']) expect(isWildcardHost(host), host).toBe(false);
  });
});
