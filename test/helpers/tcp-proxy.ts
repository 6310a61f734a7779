// The proxy lives with the benchmark (bench/tcp-proxy.ts) so that `npm run chaos` can use it too:
// bench/ compiles on its own and cannot import from test/. One copy, imported from here by the tests.
export { TcpProxy } from '../../bench/tcp-proxy.js';
