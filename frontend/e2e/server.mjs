// Starts the real BFF on a free port with a throwaway database, storage and var dir.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const python = process.env.PYTHON ?? join(repo, '.venv/bin/python');

// Every server a journey file starts. The test runner ends a file that runs out of time
// (run.mjs's --test-timeout) with SIGTERM: its `after` hooks never run, so the servers are
// stopped here and their throwaway folders removed, and what each said last is written to the
// folder run.mjs names in E2E_HUNG_DIR and prints (the runner no longer reads a cancelled file's
// output), so a journey that hung in CI can be read without running it again.
const running = new Map();
/** child, started by this file, ends with it; log() is what it has printed, dir its folder. */
export function own(child, name, log, dir) {
  running.set(child, { name, log, dir });
  child.once('exit', () => running.delete(child));
}
process.once('SIGTERM', () => {
  const said = [...running].map(([child, { name, log }]) => `--- ${name} (pid ${child.pid}), its last lines:\n${log().split('\n').slice(-60).join('\n')}`);
  const report = `${process.argv[1]}\n${said.join('\n') || '(no server running)'}\n`;
  if (process.env.E2E_HUNG_DIR) {
    mkdirSync(process.env.E2E_HUNG_DIR, { recursive: true });
    writeFileSync(join(process.env.E2E_HUNG_DIR, `${process.pid}.log`), report);
  } else console.error(report);
  const dirs = [...running.values()].map(({ dir }) => dir);
  for (const child of running.keys()) child.kill('SIGTERM');
  const deadline = Date.now() + 10_000;
  const check = () => {
    if (running.size === 0 || Date.now() > deadline) {
      for (const child of running.keys()) child.kill('SIGKILL');
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
      process.exit(1);
    }
    setTimeout(check, 100);
  };
  check();
});

export function freePort() {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => done(port));
    });
  });
}

const build = join(repo, 'frontend', 'dist');
/** The files of a build that `text` (its index.html or a script) names: assets/NAME.js or .css. */
const named = (text) => [...text.matchAll(/assets\/[\w.-]+?\.(?:js|css)\b/g)].map(([name]) => name);

/** The files `target`'s index.html and the scripts it loads name that are not there (the entry
 * script names every chunk). */
function missingFiles(target) {
  const entries = named(readFileSync(join(target, 'index.html'), 'utf8'));
  const scripts = entries.filter((name) => name.endsWith('.js') && existsSync(join(target, name)));
  const wanted = [...entries, ...scripts.flatMap((name) => named(readFileSync(join(target, name), 'utf8')))];
  return wanted.filter((name) => !existsSync(join(target, name)));
}

/**
 * A copy of the built web app (frontend/dist) in `target`, for one server to serve (its
 * BFF_WEB_DIR). frontend/dist is shared: a build there while a journey ran, or a bench's swap of
 * its index.html, changed the pages the journey loaded (the intake journey once met an index.html
 * of a build from before the inbox named the suggested patient, and waited 60 s for the name with
 * no request failed). A copy taken while a build was writing (a file gone, or one named missing)
 * is taken again. Null when there is no build: the server then says so on every page.
 */
export async function copyBuild(target) {
  if (!existsSync(join(build, 'index.html'))) return null;
  let missing = [];
  for (let attempt = 1; attempt <= 30; attempt += 1) {
    try {
      rmSync(target, { recursive: true, force: true });
      cpSync(build, target, { recursive: true });
      missing = missingFiles(target);
      if (missing.length === 0) return target;
    } catch (error) {
      missing = [String(error)];
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
  throw new Error(`frontend/dist stayed incomplete for 30 s (${missing.slice(0, 3).join(', ')}): is a build stuck?`);
}

/** host 'localhost' serves the web app at http://localhost:PORT (BFF_PUBLIC_URL too), as
 * passkeys need: WebAuthn accepts localhost, not 127.0.0.1, as an insecure origin. The server
 * serves a copy of frontend/dist of its own (copyBuild), `webDir` in what this returns. */
export async function startServer({ admin, host = '127.0.0.1', env: extra = {} }) {
  const dir = mkdtempSync(join(tmpdir(), 'records-e2e-'));
  const port = await freePort();
  const webDir = await copyBuild(join(dir, 'web'));
  const env = {
    ...process.env,
    BFF_HOST: '127.0.0.1',
    BFF_PORT: String(port),
    BFF_DATABASE_URL: `sqlite://${dir}/e2e.sqlite3`,
    BFF_STORAGE_URL: `file://${dir}/storage`,
    BFF_VAR_DIR: join(dir, 'var'),
    BFF_SECRET_KEY: 'e2e-'.padEnd(48, 'k'),
    BFF_ADMIN_USERNAME: admin.username,
    BFF_ADMIN_PASSWORD: admin.password,
    BFF_PUBLIC_URL: `http://${host}:${port}`,
    ...(webDir ? { BFF_WEB_DIR: webDir } : {}),
    ...extra,
  };
  // serve reads config/hypercorn.toml relative to the working directory: run from the repo.
  const create = spawnSync(
    python,
    ['-m', 'bff', 'users', 'create', '--username', admin.username, '--name', admin.name, '--role', 'admin', '--password', admin.password],
    { cwd: repo, env, encoding: 'utf8' },
  );
  if (create.status !== 0) throw new Error(`creating the admin failed: ${create.stderr}`);
  const child = spawn(python, ['-m', 'bff', 'serve'], { cwd: repo, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout.on('data', (d) => (log += d));
  child.stderr.on('data', (d) => (log += d));
  own(child, 'the BFF', () => log, dir);
  const base = `http://${host}:${port}`;
  const local = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the BFF exited early:\n${log}`);
    try {
      if ((await fetch(`${local}/api/health`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`the BFF did not start:\n${log}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    base,
    /** The build this server serves (a copy of frontend/dist), or null when there was none. */
    webDir,
    /** The same server at 127.0.0.1, for API calls from Node. */
    local,
    log: () => log,
    /** `python -m bff args` on this server's database and keys; returns its standard output. */
    cli(...args) {
      const result = spawnSync(python, ['-m', 'bff', ...args], { cwd: repo, env, encoding: 'utf8' });
      if (result.status !== 0) throw new Error(`python -m bff ${args.join(' ')} failed: ${result.stderr}`);
      return result.stdout;
    },
    /** One SQL statement on this server's SQLite database: arranges what the API cannot (an old session). */
    sql(statement) {
      const script = 'import sqlite3, sys\nwith sqlite3.connect(sys.argv[1]) as c: c.execute(sys.argv[2])';
      const result = spawnSync(python, ['-c', script, join(dir, 'e2e.sqlite3'), statement], { encoding: 'utf8' });
      if (result.status !== 0) throw new Error(`SQL failed: ${result.stderr}`);
    },
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await new Promise((r) => {
          const timer = setTimeout(() => {
            child.kill('SIGKILL');
            r();
          }, 10_000);
          child.once('exit', () => {
            clearTimeout(timer);
            r();
          });
        });
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A real clamd (`python -m tools.testclamd`: Debian's clamd with a signature database of its
 * own, EICAR's among them) on a Unix socket in a throwaway folder. Returns its address, the
 * value of BFF_CLAMD, and stop(). Only the journeys about scanning start one (~5-10 s).
 */
export async function startClamd() {
  const dir = mkdtempSync(join(tmpdir(), 'records-clamd-'));
  const child = spawn(python, ['-m', 'tools.testclamd', dir], { cwd: repo, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  own(child, 'clamd (tools.testclamd)', () => log, dir);
  child.stderr.on('data', (d) => (log += d));
  const address = await new Promise((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`clamd was not ready within 90 s:\n${log}`)), 90_000);
    child.stdout.on('data', (d) => {
      log += d;
      const ready = /clamd ready: (\S+)/.exec(log);
      if (ready) {
        clearTimeout(timer);
        done(ready[1]);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`clamd exited (${code}) before it was ready:\n${log}`));
    });
  });
  return {
    address,
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM'); // tools.testclamd stops clamd and waits for it
        await new Promise((r) => {
          const timer = setTimeout(() => {
            child.kill('SIGKILL');
            r();
          }, 15_000);
          child.once('exit', () => {
            clearTimeout(timer);
            r();
          });
        });
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A JSON call to the API (or, with root, a path at the server root such as /patients/admin/...),
 * for arranging data the journeys need. */
export async function api(base, method, path, { token, body, root = false } = {}) {
  const response = await fetch(`${base}${root ? '' : '/api'}${path}`, {
    method,
    headers: { 'Content-Type': 'application/json', ...(token ? { 'x-auth-token': token } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await response.json().catch(() => null);
  if (!response.ok) throw new Error(`${method} ${path} -> ${response.status} ${JSON.stringify(data)}`);
  return data;
}

/**
 * `python -m tools.devcluster` (what `make cluster` runs): two instances behind nginx on a
 * throwaway PostgreSQL database, a Redis database of the given number and moto; an instance
 * that dies is restarted by it. Returns the address behind nginx, each instance's own address
 * and process id (kept current as instances restart), kill(index) and stop().
 */
export async function startCluster({ adminPassword, redisDb }) {
  const dir = mkdtempSync(join(tmpdir(), 'records-cluster-'));
  const port = await freePort();
  const database = `bff_e2e_cluster_${randomBytes(4).toString('hex')}`;
  const child = spawn(
    python,
    ['-m', 'tools.devcluster', '--port', String(port), '--database', database, '--redis', `redis://127.0.0.1:6379/${redisDb}`, '--root', dir],
    { cwd: repo, env: { ...process.env, BFF_ADMIN_PASSWORD: adminPassword }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let log = '';
  const pids = [];
  const instances = [];
  const waiters = [];
  own(child, 'the cluster (tools.devcluster)', () => log, dir);
  child.stderr.on('data', (d) => (log += d));
  child.stdout.on('data', (d) => {
    log += d;
    for (const m of log.matchAll(/instance (\d+): (\S+) \(pid (\d+)\)|instance (\d+) died: restarted \(pid (\d+)\)/g)) {
      pids[Number(m[1] ?? m[4])] = Number(m[3] ?? m[5]);
      if (m[2]) instances[Number(m[1])] = m[2];
    }
    for (const waiter of [...waiters]) waiter();
  });
  /** Resolves when the output has a line matching pattern. */
  const waitFor = (pattern, ms) =>
    new Promise((done, fail) => {
      const timer = setTimeout(() => fail(new Error(`no ${pattern} within ${ms} ms:\n${log}`)), ms);
      const check = () => {
        if (!pattern.test(log)) return;
        clearTimeout(timer);
        waiters.splice(waiters.indexOf(check), 1);
        done();
      };
      waiters.push(check);
      check();
    });
  child.once('exit', () => waiters.forEach((w) => w()));
  await waitFor(/^ {2}An instance that dies/m, 180_000);
  return {
    base: `http://127.0.0.1:${port}`,
    /** Each instance's own address (bypassing nginx). */
    instances,
    pids,
    waitFor,
    /** SIGKILL instance index with its worker (it runs in its own process group). */
    kill(index) {
      process.kill(-pids[index], 'SIGKILL');
    },
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM'); // the cluster stops nginx, moto and the instances
        await new Promise((r) => child.once('exit', r));
      }
      spawnSync('dropdb', ['-h', '127.0.0.1', '-U', 'postgres', '--if-exists', '--force', database]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
