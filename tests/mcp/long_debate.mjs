// `agon mcp` under a client that times out: the official TypeScript SDK's
// client, whose call fails after TIMEOUT ms without a response unless
// progress resets the clock (`resetTimeoutOnProgress`). One seat's call
// takes SLOW ms, longer than the timeout, so only agon's heartbeats keep
// the call alive. First the same call without the reset, to show the
// timeout is real; then with it, where the debate must complete.
//
// Run by scripts/test-mcp.sh with AGON_BIN and the test server's URL.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [agon, modelUrl, data, timeoutMs] = process.argv.slice(2);
const TIMEOUT = Number(timeoutMs);

async function call(resetTimeoutOnProgress) {
  const transport = new StdioClientTransport({
    command: agon,
    args: ["mcp", "--timeout", "120"],
    env: { PATH: process.env.PATH, AGON_DATA_DIR: data, AGON_CACHE_DIR: `${data}/cache`,
           OPENAI_BASE_URL: `${modelUrl}/v1`, OPENAI_API_KEY: "test-key" },
    stderr: "ignore",
  });
  const client = new Client({ name: "long-debate", version: "1" });
  await client.connect(transport);
  const notes = [];
  const started = Date.now();
  try {
    const result = await client.callTool(
      { name: "debate", arguments: { question: "Ship on Friday?", panel: ["openai/quick", "openai/slow"],
                                     protocol: "round-robin", rounds: 1, no_judge: true } },
      undefined,
      { timeout: TIMEOUT, resetTimeoutOnProgress, onprogress: (p) => notes.push([Date.now() - started, p]) },
    );
    return { ok: true, result, notes, ms: Date.now() - started };
  } catch (e) {
    return { ok: false, error: String(e), notes, ms: Date.now() - started };
  } finally {
    await client.close();
  }
}

function fail(why) {
  console.error(`long_debate: ${why}`);
  process.exit(1);
}

const without = await call(false);
if (without.ok) fail(`without resetting on progress the call should time out after ${TIMEOUT} ms; it returned`);
if (!/timed out|timeout/i.test(without.error)) fail(`expected a timeout, got: ${without.error}`);

const withReset = await call(true);
if (!withReset.ok) fail(`with heartbeats the debate should complete: ${withReset.error}`);
const data_ = withReset.result.structuredContent;
if (!data_ || data_.outcome.kind !== "completed") fail(`outcome: ${JSON.stringify(data_?.outcome)}`);
if (withReset.ms <= TIMEOUT) fail(`the debate took ${withReset.ms} ms, not longer than the timeout: nothing was shown`);
const times = [0, ...withReset.notes.map(([t]) => t), withReset.ms];
const gaps = times.slice(1).map((t, i) => t - times[i]);
const widest = Math.max(...gaps);
if (widest > 10000) fail(`${widest} ms without progress; at most 10,000 is promised`);
const heartbeats = withReset.notes.filter(([, p]) => /still running/.test(p.message ?? "")).length;
if (heartbeats === 0) fail("no heartbeat was sent");
const values = withReset.notes.map(([, p]) => p.progress);
if (values.some((v, i) => i > 0 && v <= values[i - 1])) fail(`progress must rise: ${values}`);
console.error(`long_debate: without reset, timed out after ${without.ms} ms; with it, completed in ${withReset.ms} ms, ` +
  `${withReset.notes.length} notifications (${heartbeats} heartbeats), widest gap ${widest} ms`);
