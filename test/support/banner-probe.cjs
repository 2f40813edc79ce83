/**
 * Preloaded (`NODE_OPTIONS=--require …`) into `serve` by a test: when the banner ("listening on")
 * is written, says on stderr how many SIGTERM and SIGINT listeners the process has at that
 * moment. Whoever sees the banner may signal at once (CONTRACT §9): the graceful stop must
 * already be in place.
 */
const write = process.stdout.write;
process.stdout.write = function (chunk, ...rest) {
  if (String(chunk).includes('listening on')) {
    process.stderr.write(`banner-probe: SIGTERM ${process.listenerCount('SIGTERM')} SIGINT ${process.listenerCount('SIGINT')}\n`);
  }
  return write.call(this, chunk, ...rest);
};
