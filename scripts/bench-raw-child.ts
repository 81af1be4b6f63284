/**
 * The benchmark's raw child-process baseline (not a tool): answers every IPC message at once,
 * with none of toolgate's call path.
 */
process.on('message', (message: unknown) => {
  process.send!([Array.isArray(message) ? message[0] : 0, 1, 'ok']);
});
process.on('disconnect', () => process.exit(0));
process.send!('ready');
