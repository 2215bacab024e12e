// mathjs's single-file build: the same API as the package's entry point, which has no types of its own.
declare module 'mathjs/lib/browser/math.js' {
  export * from 'mathjs';
}
