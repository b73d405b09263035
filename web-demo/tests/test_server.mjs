// The project's own model server (agon-test-server, built by cargo) for the
// browser tests: canned replies per model, faults, and the requests it saw.
// A helper, not a test file: node --test picks up only *.test.mjs and the
// like, and this name matches none of its patterns.
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const testServerBin = process.env.AGON_TEST_SERVER ?? join(root, 'target/debug/agon-test-server');

/**
 * Start a server with `config` (agon-testkit's Config as JSON); it stops by
 * itself after 120 s. Resolves to { url, stats, stop }.
 */
export async function startTestServer(config) {
  const dir = await mkdtemp(join(tmpdir(), 'agon-test-server-'));
  await writeFile(join(dir, 'config.json'), JSON.stringify(config));
  const child = spawn(testServerBin, ['--port', '0', '--config', join(dir, 'config.json'), '--max-seconds', '120'],
    { stdio: ['ignore', 'pipe', 'inherit'] });
  for await (const line of createInterface({ input: child.stdout })) {
    const found = line.match(/^listening (http:\/\/127\.0\.0\.1:\d+)/);
    if (found) {
      return {
        url: found[1],
        stats: async () => (await fetch(`${found[1]}/stats`)).json(),
        stop: () => { child.kill(); return rm(dir, { recursive: true, force: true }); },
      };
    }
  }
  throw new Error('the test server did not start');
}
