const { relative } = require('node:path');

// Must match SKIP_MARK in test/utils/requires.ts, which puts the reason in a skipped suite's name.
const SKIP_MARK = ' [skipped: needs ';

/** The reasons marked in a test's enclosing suites, and the path of suites down to the first marked one. */
function skipReasons(test) {
  const reasons = [];
  const path = [];
  for (const title of test.ancestorTitles) {
    const at = title.indexOf(SKIP_MARK);
    if (at === -1) {
      if (reasons.length === 0) path.push(title);
      continue;
    }
    if (reasons.length === 0) path.push(title.slice(0, at));
    reasons.push(`needs ${title.slice(at + SKIP_MARK.length, -1)}`);
  }
  return { reasons, path };
}

/**
 * One line for each skipped suite (a `requires(...)` block, with how many tests it holds and the service
 * or browser it lacks) and one for each test skipped otherwise (it.skip, it.todo), so every skipped test
 * is counted in exactly one line and its reason is visible. Then the closing line in the plain form CI
 * tools read: "tests: N passed, N failed, N skipped".
 */
class SummaryReporter {
  constructor(globalConfig) {
    this.namePattern = globalConfig.testNamePattern;
  }

  /** Why a test with no missing service named was skipped. */
  unmarkedReason(test) {
    if (test.status === 'todo') return 'it.todo';
    if (this.namePattern)
      return `not selected by --testNamePattern ${this.namePattern} (or .skip in the code)`;
    return 'skipped in the code (.skip), not for a missing service';
  }

  onRunComplete(_contexts, results) {
    const groups = new Map();
    for (const file of results.testResults) {
      const where = relative(process.cwd(), file.testFilePath);
      for (const test of file.testResults) {
        if (test.status !== 'pending' && test.status !== 'todo' && test.status !== 'skipped') continue;
        const { reasons, path } = skipReasons(test);
        const key =
          reasons.length > 0
            ? `${where} › ${path.join(' › ')}\0${reasons.join('; ')}`
            : this.namePattern
              ? `${where}\0${this.unmarkedReason(test)}`
              : `${where} › ${[...test.ancestorTitles, test.title].join(' › ')}\0${this.unmarkedReason(test)}`;
        groups.set(key, (groups.get(key) ?? 0) + 1);
      }
    }
    for (const [key, count] of groups) {
      const [name, why] = key.split('\0');
      process.stdout.write(`skipped ${count} ${count === 1 ? 'test' : 'tests'} (${name}): ${why}\n`);
    }
    const skipped = results.numPendingTests + results.numTodoTests;
    process.stdout.write(
      `tests: ${results.numPassedTests} passed, ${results.numFailedTests} failed, ${skipped} skipped\n`,
    );
  }
}
module.exports = SummaryReporter;
