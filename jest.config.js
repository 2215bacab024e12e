// @nestjs/* 12 ships ES modules only; Jest's CommonJS runtime cannot require() them on Node 20,
// so SWC compiles both our TypeScript and those packages to CommonJS for the test run.
const swc = [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
    },
    module: { type: 'commonjs' },
  },
];
const common = {
  transform: { '^.+\\.(t|j)s$': swc },
  // The OTLP exporter loads `http` with import(), which Jest's CommonJS sandbox refuses: SWC makes it a require().
  // marked (read by the docs-snippet test) ships ES modules only.
  transformIgnorePatterns: [
    '/node_modules/(?!(@nestjs|jose|oauth4webapi|oidc-provider|@opentelemetry/otlp-exporter-base|marked)/)',
  ],
  testEnvironment: 'node',
  setupFiles: ['reflect-metadata'],
};
module.exports = {
  reporters: ['default', '<rootDir>/test/summary-reporter.js'],
  // A whole app, real sockets, child processes and sometimes a browser per test: a minute before a hung
  // test fails, since two full runs at once on two cores stretch a process start or a Chromium launch to
  // tens of seconds. A passing test never waits it out. (A global option: Jest ignores it in a project.)
  testTimeout: 60_000,
  // Two workers on any machine: Jest's default on two cores is one (cores - 1), which runs the files one
  // after another although most e2e time is spent waiting on sockets, timers and child processes. Two
  // halved the unit project's time here; two full runs at once (four workers on two cores) still pass.
  maxWorkers: 2,
  // A worker that ran many files holds what their apps, sockets and modules left behind: past 4 GB in a
  // full run, where its garbage collections stall every timer and socket read of the next files for
  // seconds. One whose heap passes 1 GB after a file is replaced by a fresh one (about a second).
  workerIdleMemoryLimit: '1GB',
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/src/**/*.spec.ts'] },
    { ...common, displayName: 'e2e', testMatch: ['<rootDir>/test/e2e/**/*.e2e-spec.ts'] },
  ],
};
