// A real Neo4j for one test file: test/neo4j/start.sh on a free loopback port, with the file's own pid file, log file
// and data directory, stopped (and its data removed) afterwards. stop()/start() restart it on the same data.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import neo4j, { type Driver } from 'neo4j-driver';

const run = promisify(execFile);
const requireVariable = 'LORE_REQUIRE_NEO4J';
const neo4jDir = fileURLToPath(new URL('../neo4j/', import.meta.url));
const password = 'lore-test-password';

export type TestNeo4j = {
  url: string;
  port: number;
  /** NEO4J_URL, NEO4J_USER, NEO4J_PASSWORD for a gateway or CLI pointed at this server */
  env: Record<string, string>;
  /** a driver for looking inside (closed by close()) */
  driver: Driver;
  start(): Promise<void>;
  stop(): Promise<void>;
  close(): Promise<void>;
};

export async function startNeo4j(): Promise<TestNeo4j> {
  const port = await freePort();
  const home = await mkdtemp(path.join(tmpdir(), 'lore-neo4j-test-'));
  const scriptEnv = {
    ...process.env,
    NEO4J_BOLT_PORT: String(port),
    NEO4J_PASSWORD: password,
    NEO4J_DATA_DIR: path.join(home, 'data'),
    NEO4J_PID_FILE: path.join(home, 'neo4j.pid'),
    NEO4J_LOG_FILE: path.join(home, 'neo4j.log'),
  };
  const script = async (name: 'start.sh' | 'stop.sh') => {
    try {
      await run('bash', [path.join(neo4jDir, name)], { env: scriptEnv, maxBuffer: 16 * 1024 * 1024 });
    } catch (error) {
      const { stderr } = error as { stderr?: string };
      throw new Error(`test/neo4j/${name} failed on port ${port}:\n${stderr ?? (error as Error).message}`);
    }
  };
  await buildOnce();
  await script('start.sh');
  const url = `bolt://127.0.0.1:${port}`;
  const driver = neo4j.driver(url, neo4j.auth.basic('neo4j', password), { disableLosslessIntegers: true });
  return {
    url,
    port,
    env: { NEO4J_URL: url, NEO4J_USER: 'neo4j', NEO4J_PASSWORD: password },
    driver,
    start: () => script('start.sh'),
    stop: () => script('stop.sh'),
    async close() {
      await driver.close();
      await script('stop.sh');
      await rm(home, { recursive: true, force: true });
    },
  };
}

/**
 * start.sh builds the launcher when it is missing; two test files starting at once must not both run Maven on one
 * target directory, so the first build happens under a lock (CI builds it before the tests, making this a no-op).
 */
async function buildOnce(): Promise<void> {
  const check = 'test -s target/classpath.txt -a -f target/lore-neo4j-launcher.jar -a target/classpath.txt -nt pom.xml';
  await run('bash', ['-c', `mkdir -p .run && flock .run/build.lock bash -c '${check} || mvn -q -B -Dstyle.color=never package >.run/build.log 2>&1'`], {
    cwd: neo4jDir,
  }).catch((error) => {
    throw new Error(`building test/neo4j failed (see test/neo4j/.run/build.log): ${(error as Error).message}`);
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * Why the Neo4j tests cannot run here (test/neo4j needs Java 17 or later and Maven on PATH), or undefined when they can.
 * LORE_REQUIRE_NEO4J=1 (as .ci/run sets it) makes a missing prerequisite an error rather than a reason to skip.
 */
export async function neo4jMissing(): Promise<string | undefined> {
  const [java, maven] = await Promise.all([
    run('java', ['-version']).then(({ stdout, stderr }) => stderr + stdout, () => undefined),
    run('mvn', ['-v']).then(() => true, () => false),
  ]);
  const version = java && /version "(\d+)(?:\.(\d+))?/.exec(java);
  const major = version ? (version[1] === '1' ? Number(version[2]) : Number(version[1])) : 0;
  const missing = [major >= 17 ? undefined : java ? `Java 17 or later (found Java ${major})` : 'Java 17 or later', maven ? undefined : 'Maven (mvn)'].filter(Boolean);
  if (missing.length === 0) return undefined;
  const reason = `no ${missing.join(' and no ')} on PATH`;
  if (/^(1|true|yes)$/i.test(process.env[requireVariable] ?? '')) throw new Error(`${requireVariable} is set, but the Neo4j tests cannot run: ${reason}`);
  return reason;
}
