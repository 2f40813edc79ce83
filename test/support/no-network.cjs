/**
 * Preloaded (`node --require`) into a tool the tests run that must work offline, such as the
 * Redocly linter: any connection or name lookup beyond this machine ends the process with exit
 * 99 and says where it tried to go, so a test sees it rather than a lint that passed after a fetch.
 */
const net = require('node:net');
const dns = require('node:dns');

const LOCAL = /^(?:127\.|::1$|localhost$|0\.0\.0\.0$)/;
const refuse = (where) => {
  process.stderr.write(`no-network: refused a connection to ${where}\n`);
  process.exit(99);
};

const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function (...args) {
  const first = args[0];
  const options = Array.isArray(first) ? first[0] : first;
  const host = typeof options === 'object' && options !== null ? (options.path ?? options.host ?? 'localhost') : (args[1] ?? 'localhost');
  if (typeof options === 'object' && options?.path) return connect.apply(this, args); // a local socket file
  if (!LOCAL.test(String(host))) refuse(`${host}:${typeof options === 'object' ? options?.port : options}`);
  return connect.apply(this, args);
};
for (const target of [dns, dns.promises]) {
  const lookup = target.lookup;
  target.lookup = function (host, ...rest) {
    if (!LOCAL.test(String(host))) refuse(String(host));
    return lookup.call(this, host, ...rest);
  };
}
