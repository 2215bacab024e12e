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
  // A whole app, real sockets and sometimes a browser per test: 30 s before a hung test fails, since a
  // loaded two-core machine can take more than Jest's default 5 s to launch Chromium. (A global option:
  // Jest ignores it in a project.)
  testTimeout: 30_000,
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/src/**/*.spec.ts'] },
    { ...common, displayName: 'e2e', testMatch: ['<rootDir>/test/e2e/**/*.e2e-spec.ts'] },
  ],
};
