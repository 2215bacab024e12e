import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { ROOT, serve, stop } from './cli';
import { FakeLlm, reply } from './fake-llm';
import type { ServeCommand } from './shell-snippet';

/** What the stand-in model answers every snippet that reaches a model. */
export const MODEL_ANSWER = '17% of 2345 is 398.65.';

/** What a reader's clone has that snippets use: the built server, configs, examples, packages. */
const LINKED = ['config', 'dist', 'examples', 'node_modules', 'package.json'];

/** curl as the reader runs it, but an HTTP error (or a status other than the one the page shows) fails it. */
const CURL = (real: string) => `#!/bin/bash
headers=$(mktemp)
"${real}" -D "$headers" "$@" & pid=$!
trap 'kill $pid 2>/dev/null; rm -f "$headers"; exit 143' TERM INT
wait $pid; rc=$?
status=$(grep -o '^HTTP/[0-9.]* [0-9]*' "$headers" | tail -1 | cut -d' ' -f2)
rm -f "$headers"
[ $rc -eq 0 ] || exit $rc
if [ -n "$SNIPPET_EXPECT_STATUS" ]; then
  [ "$status" = "$SNIPPET_EXPECT_STATUS" ] && exit 0
  echo "curl: HTTP $status, the page shows $SNIPPET_EXPECT_STATUS" >&2; exit 22
fi
[ -n "$status" ] && [ "$status" -lt 400 ] && exit 0
echo "curl: HTTP $status" >&2; exit 22
`;

/** npm as far as a snippet may use it: installing a package this repository already has. */
const NPM = `#!/bin/bash
if [ "$1" = install ] || [ "$1" = i ]; then
  shift
  for pkg in "$@"; do
    case "$pkg" in -*) continue ;; esac
    [ -f "node_modules/$pkg/package.json" ] || { echo "npm: $pkg is not a package of this repository" >&2; exit 1; }
  done
  exit 0
fi
echo "npm $*: the snippet test runs no other npm command" >&2; exit 1
`;

export interface BashResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The captured output of each checked command, by its index. */
  outputs: Map<number, string>;
}

/**
 * Where snippets run: a fresh folder that looks like the reader's clone (links to the build, configs,
 * examples and packages; its own data/ and .tmp/), curl and npm shims first on PATH, a stand-in model
 * for every model URL, and one `interlude serve` per distinct command, on an ephemeral port.
 */
export class SnippetWorkspace {
  private readonly servers = new Map<string, Promise<{ child: ChildProcess; port: number }>>();
  private counter = 0;
  /** Servers starting at once: a two-core machine starts ten in a row faster than all at once. */
  private starting: Promise<unknown>[] = [];

  private constructor(
    readonly dir: string,
    private readonly bin: string,
    readonly llm: FakeLlm,
  ) {}

  static async create(): Promise<SnippetWorkspace> {
    const dir = mkdtempSync(join(tmpdir(), 'interlude-snippets-'));
    for (const name of LINKED) symlinkSync(join(ROOT, name), join(dir, name));
    const bin = join(dir, '.snippet-bin');
    mkdirSync(bin);
    const real = spawnSync('bash', ['-c', 'command -v curl'], { encoding: 'utf8' }).stdout.trim();
    writeFileSync(join(bin, 'curl'), CURL(real));
    writeFileSync(join(bin, 'npm'), NPM);
    chmodSync(join(bin, 'curl'), 0o755);
    chmodSync(join(bin, 'npm'), 0o755);
    const llm = await FakeLlm.start();
    llm.respondWith(() => reply.text(MODEL_ANSWER));
    return new SnippetWorkspace(dir, bin, llm);
  }

  /** The environment of servers and scripts: no real model keys or URLs, every model URL the stand-in's. */
  env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const name of Object.keys(env)) {
      if (/(_API_KEY|_BASE_URL)$/.test(name)) delete env[name];
    }
    const model = { OPENAI_BASE_URL: this.llm.url, NIM_BASE_URL: this.llm.url };
    const given = Object.fromEntries(
      Object.entries(extra).map(([name, value]) => [name, name.endsWith('_BASE_URL') ? this.llm.url : value]),
    );
    return { ...env, ...model, INTERLUDE_JUDGE_BASE_URL: this.llm.url, ...given };
  }

  /** The port of the server `command` starts (started once, then shared by every snippet that names it). */
  async port(command: ServeCommand): Promise<number> {
    const key = JSON.stringify(command);
    let started = this.servers.get(key);
    if (!started) {
      const args = splitWords(command.args);
      const turn = this.starting.length >= 3 ? this.starting.shift() : undefined;
      started = Promise.resolve(turn)
        .catch(() => undefined)
        .then(() =>
          serve([...args, '--port', '0'], this.env(command.env), { cwd: this.dir, timeoutMs: 60_000 }),
        )
        .then(({ child, url }) => ({ child, port: Number(new URL(url).port) }));
      started.catch(() => undefined); // reported by whichever snippet awaits it
      this.starting.push(started);
      this.servers.set(key, started);
    }
    return (await started).port;
  }

  writeFile(name: string, text: string): void {
    writeFileSync(join(this.dir, name), text);
  }

  /** Runs a bash script in the workspace (its own process group, killed with whatever it left running). */
  runBash(script: string, timeoutMs: number): Promise<BashResult> {
    const out = join(this.dir, '.snippet-out', String(this.counter++));
    mkdirSync(out, { recursive: true });
    const file = join(out, 'script.sh');
    writeFileSync(file, `set -eo pipefail\nshopt -s inherit_errexit\n${script}\n`);
    const env = { ...this.env(), PATH: `${this.bin}:${process.env.PATH}`, SNIPPET_OUT: out };
    const child = spawn('bash', [file], { cwd: this.dir, env, detached: true });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const killGroup = () => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // the group is gone already
      }
    };
    return new Promise((done, fail) => {
      const timer = setTimeout(() => {
        killGroup();
        stderr += `\n(the snippet test stopped it after ${timeoutMs} ms)`;
      }, timeoutMs);
      child.on('error', fail);
      child.on('close', (code) => {
        clearTimeout(timer);
        killGroup();
        done({ code, stdout, stderr, outputs: readOutputs(out) });
      });
    });
  }

  async close(): Promise<void> {
    const started = await Promise.allSettled([...this.servers.values()]);
    await Promise.all(started.map((s) => (s.status === 'fulfilled' ? stop(s.value.child) : undefined)));
    await this.llm.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Shell words as bash splits them (quotes and all). */
export function splitWords(text: string): string[] {
  if (!text.trim()) return [];
  const split = spawnSync('bash', ['-c', `printf '%s\\0' ${text}`], { encoding: 'utf8' });
  if (split.status !== 0) throw new Error(`cannot split "${text}": ${split.stderr}`);
  return split.stdout.split('\0').slice(0, -1);
}

function readOutputs(dir: string): Map<number, string> {
  const outputs = new Map<number, string>();
  for (let index = 0; ; index++) {
    try {
      outputs.set(index, readFileSync(join(dir, String(index)), 'utf8'));
    } catch {
      return outputs;
    }
  }
}
