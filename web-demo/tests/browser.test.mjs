// The browser demo in headless Chromium, used as a person would: fill the
// form, click Run debate, read the Synthesis and Outcome regions, download.
// Needs the built page (scripts/build-web.sh), the test server binary, and
// OPENAI_BASE_URL pointing at the local SmolLM2 server (scripts/test-web.sh
// provides all three).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { serve } from './serve.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const dist = join(root, 'target/web-demo');
const golden = join(root, 'tests/golden');
const testServerBin = process.env.AGON_TEST_SERVER ?? join(root, 'target/debug/agon-test-server');
const screenshot = process.env.AGON_WEB_SCREENSHOT ?? join(dist, 'screenshot.png');

let browser;
let site;

before(async () => {
  site = await serve(dist);
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
});

after(async () => {
  await browser?.close();
  await site?.close();
});

/** A fresh page on the demo that records every URL it requests and every CSP violation. */
async function openDemo() {
  const context = await browser.newContext({ acceptDownloads: true, viewport: { width: 1200, height: 900 } });
  const page = await context.newPage();
  const requested = [];
  page.on('request', (request) => requested.push(request.url()));
  page.on('pageerror', (error) => console.log(`page error: ${error.message}`));
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      (window.cspViolations ??= []).push(`${e.violatedDirective} ${e.blockedURI}`);
    });
  });
  await page.goto(site.url);
  await page.getByRole('status').filter({ hasText: 'Ready.' }).waitFor();
  return { page, requested, context };
}

async function assertNoCspViolation(page) {
  assert.deepEqual(await page.evaluate(() => window.cspViolations ?? []), []);
}

async function fillForm(page, fields) {
  for (const [label, value] of Object.entries(fields)) {
    const field = page.getByLabel(label, { exact: true });
    if (label === 'Protocol') await field.selectOption(value);
    else await field.fill(value);
  }
}

/** Click Run debate and wait until the Outcome region has something to say. */
async function runDebate(page, timeout) {
  await page.getByRole('button', { name: 'Run debate' }).click();
  await page.waitForFunction(() => document.querySelector('#outcome .body').textContent !== ''
    || document.querySelector('#status').textContent.startsWith('Cannot'), null, { timeout });
  return (await page.getByRole('region', { name: 'Outcome' }).textContent()).trim();
}

async function download(page, button) {
  const [file] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: button }).click(),
  ]);
  return readFile(await file.path(), 'utf8');
}

/** The project's own model server, with faults; stops by itself after 120 s. */
async function startTestServer(config) {
  const dir = await mkdtemp(join(tmpdir(), 'agon-web-'));
  await writeFile(join(dir, 'config.json'), JSON.stringify(config));
  const child = spawn(testServerBin, ['--port', '0', '--config', join(dir, 'config.json'), '--max-seconds', '120'],
    { stdio: ['ignore', 'pipe', 'inherit'] });
  for await (const line of createInterface({ input: child.stdout })) {
    const found = line.match(/^listening (http:\/\/127\.0\.0\.1:\d+)/);
    if (found) return { url: found[1], stop: () => child.kill() };
  }
  throw new Error('the test server did not start');
}

test('the protocol select lists every protocol the core offers', async () => {
  const { page, context } = await openDemo();
  const options = await page.getByLabel('Protocol').locator('option').allTextContents();
  assert.ok(options.includes('round-robin') && options.includes('rotating-challenger'), options.join());
  await assertNoCspViolation(page);
  await context.close();
});

test('Open journal replays every golden case without a model call; the JSON and Markdown downloads equal the golden transcripts byte for byte', async () => {
  const cases = (await readdir(golden)).sort();
  assert.ok(cases.length > 0);
  for (const name of cases) {
    // A fresh page per case: Chromium holds back a page's many downloads.
    const { page, requested, context } = await openDemo();
    await page.getByLabel('Open journal').setInputFiles(join(golden, name, 'journal.ndjson'));
    await page.getByRole('status').filter({ hasText: 'Replayed' }).waitFor();
    const json = await download(page, 'Download transcript (JSON)');
    assert.equal(json, await readFile(join(golden, name, 'transcript.json'), 'utf8'), `${name}: transcript.json`);
    const markdown = await download(page, 'Download transcript (Markdown)');
    assert.equal(markdown, await readFile(join(golden, name, 'transcript.md'), 'utf8'), `${name}: transcript.md`);
    const journal = await download(page, 'Download journal');
    assert.equal(journal, await readFile(join(golden, name, 'journal.ndjson'), 'utf8'), `${name}: journal`);
    // The page states the outcome in words, with the engine's reason, for every kind.
    const outcome = await page.getByRole('region', { name: 'Outcome' }).textContent();
    const { kind, reason } = JSON.parse(json).outcome;
    const words = { completed: 'Completed', consensus: 'Consensus reached', degraded: 'Degraded', 'judge-failed': 'Judge failed',
      'no-quorum': 'No quorum', 'cost-limit': 'Stopped at the cost limit' }[kind];
    assert.ok(words && outcome.includes(words) && outcome.includes(reason), `${name}: ${kind}: ${outcome}`);
    const elsewhere = requested.filter((url) => !url.startsWith(site.url) && !url.startsWith('blob:'));
    assert.deepEqual(elsewhere, [], `${name}: a replay calls nothing`);
    await assertNoCspViolation(page);
    await context.close();
  }
});

test('a model answering HTTP 500: the outcome says degraded and names the seat; calls run together; the key goes only to the endpoint', async () => {
  const server = await startTestServer({ latency_ms: 300, models: { bad: { fault: 'server-error' } } });
  try {
    const { page, requested, context } = await openDemo();
    await fillForm(page, {
      Endpoint: `${server.url}/v1`, 'API key': 'sk-web-test', Models: 'good, bad, fine', Judge: 'good',
      Protocol: 'rotating-challenger', Rounds: '1', Question: 'Is a hot dog a sandwich?',
    });
    const outcome = await runDebate(page, 60_000);
    assert.match(outcome, /Degraded/);
    assert.match(outcome, /Seat bad failed/);
    assert.match(outcome, /HTTP 500/);
    assert.equal(await page.locator('.card[data-seat="bad"][data-state="failed"]').count() > 0, true);
    assert.notEqual((await page.getByRole('region', { name: 'Synthesis' }).textContent()).trim(), 'Synthesis');

    const stats = await (await fetch(`${server.url}/stats`)).json();
    assert.ok(stats.max_in_flight >= 3, `the three blind calls run together (max in flight ${stats.max_in_flight})`);
    assert.ok(stats.requests.every((r) => r.authorization === 'Bearer sk-web-test' && r.stream));
    const foreign = requested.filter((url) => !url.startsWith(site.url) && !url.startsWith(server.url));
    assert.deepEqual(foreign, []);
    assert.equal(await page.evaluate(() => sessionStorage.getItem('agon.apiKey')), 'sk-web-test');
    assert.equal(await page.evaluate(() => localStorage.getItem('agon.apiKey')), null);
    await assertNoCspViolation(page);
    await context.close();
  } finally {
    server.stop();
  }
});

test('a model that never answers times out after the Timeout field\'s seconds; the outcome says so', async () => {
  const server = await startTestServer({ models: { mute: { fault: 'hang' } } });
  try {
    const { page, context } = await openDemo();
    await fillForm(page, {
      Endpoint: `${server.url}/v1`, Models: 'fine, mute, good', Judge: 'fine', Protocol: 'round-robin',
      Rounds: '1', 'Timeout (s)': '2', Question: 'Anyone there?',
    });
    const started = Date.now();
    const outcome = await runDebate(page, 30_000);
    assert.match(outcome, /Degraded/);
    assert.match(outcome, /Seat mute failed in deliberation round 1 \(timeout\): no complete answer from .* within 2 s/);
    assert.ok(Date.now() - started < 9_000, 'the timeout, not the hang, ended the call');
    await context.close();
  } finally {
    server.stop();
  }
});

test('every protocol in the select runs in the page to an outcome (test server, protocol defaults)', async () => {
  const server = await startTestServer({});
  try {
    const { page, context } = await openDemo();
    const errors = [];
    page.on('pageerror', (error) => errors.push(error.message));
    // What each protocol takes comes from the core, through the page's select.
    const protocols = await page.getByLabel('Protocol').locator('option').evaluateAll((options) =>
      options.map((o) => ({ name: o.value, maxSeats: Number(o.dataset.maxSeats ?? 3), options: o.dataset.options.split(' ') })));
    assert.ok(protocols.length >= 12, protocols.map((p) => p.name).join());
    for (const { name, maxSeats, options } of protocols) {
      const takesTexts = options.includes('options') || options.includes('items');
      const seats = Math.min(3, maxSeats);
      await fillForm(page, {
        Endpoint: `${server.url}/v1`, Models: ['m1', 'm2', 'm3'].slice(0, seats).join(', '), Judge: 'j', Protocol: name, Rounds: '',
        Options: takesTexts ? ['keep the monolith', 'split out billing', 'rewrite it all'].slice(0, seats).join('\n') : '',
        Question: 'What should we do next quarter?',
      });
      const outcome = await runDebate(page, 60_000);
      const status = await page.getByRole('status').textContent();
      assert.ok(outcome.length > 'Outcome'.length, `${name}: ${outcome} (${status})`);
      assert.doesNotMatch(await page.getByRole('status').textContent(), /Error|Cannot/, name);
    }
    assert.deepEqual(errors, []);
    await assertNoCspViolation(page);
    await context.close();
  } finally {
    server.stop();
  }
});

test('Stop aborts the calls in flight; the journal of the stopped run reopens; "remember" keeps the key in localStorage', async () => {
  const server = await startTestServer({ latency_ms: 20_000 });
  try {
    const { page, context } = await openDemo();
    await page.getByLabel('remember').check();
    await fillForm(page, {
      Endpoint: `${server.url}/v1`, 'API key': 'sk-remembered', Models: 'slow-a, slow-b', Judge: '',
      Protocol: 'round-robin', Rounds: '1', Question: 'Will this finish?',
    });
    await page.getByRole('button', { name: 'Run debate' }).click();
    await page.locator('.card').first().waitFor();
    await page.getByRole('button', { name: 'Stop' }).click();
    await page.getByRole('status').filter({ hasText: 'Stopped' }).waitFor({ timeout: 5_000 });
    assert.match(await page.getByRole('region', { name: 'Outcome' }).textContent(), /Stopped before the end/);
    assert.equal(await page.getByRole('button', { name: 'Run debate' }).isEnabled(), true);
    const journal = await download(page, 'Download journal');
    assert.equal(journal.trim().split('\n').length, 1, 'only the header: nothing was answered');
    const saved = join(await mkdtemp(join(tmpdir(), 'agon-web-')), 'stopped.ndjson');
    await writeFile(saved, journal);
    await page.getByLabel('Open journal').setInputFiles(saved);
    await page.getByRole('status').filter({ hasText: 'Replayed stopped.ndjson' }).waitFor();
    assert.match(await page.getByRole('region', { name: 'Outcome' }).textContent(), /ends before the debate did/);
    assert.equal(await page.evaluate(() => localStorage.getItem('agon.apiKey')), 'sk-remembered');
    assert.equal(await page.evaluate(() => sessionStorage.getItem('agon.apiKey')), null);
    await context.close();
  } finally {
    server.stop();
  }
});

test('a debate against the real local model streams into the page and ends with a synthesis (saves a screenshot)', async () => {
  const endpoint = process.env.OPENAI_BASE_URL;
  assert.ok(endpoint, 'set OPENAI_BASE_URL to the local model (scripts/test-web.sh does)');
  const { page, context } = await openDemo();
  await fillForm(page, {
    Endpoint: endpoint, Models: 'smollm2, smollm2, smollm2', Judge: 'smollm2',
    Protocol: 'rotating-challenger', Rounds: '1', 'Max tokens': '60',
    Question: 'Should a five-person startup write its backend in Rust or in Go?',
  });
  await page.getByRole('button', { name: 'Run debate' }).click();
  // Streaming: a card shows text while its turn is still speaking.
  await page.waitForFunction(() => [...document.querySelectorAll('.card')]
    .some((card) => !card.dataset.state && card.querySelector('.text').textContent.length > 0), null, { timeout: 120_000 });
  await page.waitForFunction(
    () => document.querySelector('#outcome .body').textContent !== '', null, { timeout: 400_000 });
  const outcome = await page.getByRole('region', { name: 'Outcome' }).textContent();
  assert.match(outcome, /Completed|Consensus reached/);
  const synthesis = await page.locator('#synthesis .card .text').textContent();
  assert.ok(synthesis.trim().length > 0, 'the judge wrote a synthesis');
  assert.ok(await page.locator('.card.role-challenger').count() > 0, 'the challenger is marked');
  await page.screenshot({ path: screenshot, fullPage: true });
  await assertNoCspViolation(page);
  await context.close();
});
