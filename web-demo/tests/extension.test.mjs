// The browser extension loaded into a real headless Chromium
// (--load-extension in a persistent profile), its side panel page opened as a
// tab (Chromium has no automation for the panel itself) and used as a person
// would. Needs scripts/build-extension.sh's target/extension/unpacked, the
// test server binary, and OPENAI_BASE_URL pointing at the local SmolLM2
// server (scripts/test-web.sh provides all three).
//
// Waits use locators, never waitForFunction: that evaluates strings, which
// the extension's CSP forbids.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startTestServer } from './test_server.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const unpacked = join(root, 'target/extension/unpacked');
const golden = join(root, 'tests/golden');
const screenshot = process.env.AGON_EXTENSION_SCREENSHOT ?? join(root, 'target/extension/screenshot.png');
const KEY = 'sk-agon-extension-test-7319';

let profile;
let browser; // a persistent context: the only way to load an extension
let worker;
let panelUrl;
const workerLog = [];
const everyLog = []; // every console line of every page, to check that no key is logged

before(async () => {
  profile = await mkdtemp(join(tmpdir(), 'agon-extension-'));
  browser = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    acceptDownloads: true,
    viewport: { width: 420, height: 1000 }, // about a side panel's width
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
      '--disable-sync', '--no-first-run', `--disable-extensions-except=${unpacked}`, `--load-extension=${unpacked}`],
  });
  worker = browser.serviceWorkers()[0] ?? await browser.waitForEvent('serviceworker', { timeout: 30_000 });
  worker.on('console', (message) => { workerLog.push(`${message.type()}: ${message.text()}`); everyLog.push(message.text()); });
  panelUrl = `chrome-extension://${new URL(worker.url()).host}/sidepanel.html`;
});

after(async () => {
  await browser?.close();
  if (profile) await rm(profile, { recursive: true, force: true });
});

/** The side panel's page in a tab, recording console errors, page errors and CSP violations. */
async function openPanel() {
  const page = await browser.newPage();
  const problems = [];
  page.on('console', (message) => {
    everyLog.push(message.text());
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      (window.cspViolations ??= []).push(`${e.violatedDirective} ${e.blockedURI}`);
    });
  });
  await page.goto(panelUrl);
  await page.getByRole('status').filter({ hasText: 'Ready.' }).or(page.getByRole('status').filter({ hasText: 'Resumed' })).waitFor();
  return { page, problems };
}

async function assertClean(page, problems) {
  assert.deepEqual(problems, []);
  assert.deepEqual(await page.evaluate(() => window.cspViolations ?? []), []);
}

/** Every area of chrome.storage as one object per area. */
function storage(page) {
  return page.evaluate(async () => ({
    sync: await chrome.storage.sync.get(null),
    local: await chrome.storage.local.get(null),
    session: await chrome.storage.session.get(null),
  }));
}

async function clearStorage(page) {
  await page.evaluate(async () => {
    await chrome.storage.local.clear();
    await chrome.storage.session.clear();
  });
}

async function fillForm(page, fields) {
  for (const [label, value] of Object.entries(fields)) {
    const field = page.getByLabel(label, { exact: true });
    if (label === 'Protocol') await field.selectOption(value);
    else await field.fill(value);
  }
}

async function outcomeOf(page, timeout = 60_000) {
  try {
    await page.locator('#outcome .body:not(:empty)').waitFor({ timeout });
  } catch (error) {
    throw new Error(`no outcome; the status says: ${await page.locator('#status').textContent()}`, { cause: error });
  }
  return (await page.getByRole('region', { name: 'Outcome' }).textContent()).trim();
}

/** Wait until a form field's value holds `text` (a textarea's value is not its text, so no locator filter sees it). */
async function valueHolding(field, text, timeout = 10_000) {
  for (const end = Date.now() + timeout; Date.now() < end; await new Promise((r) => setTimeout(r, 100))) {
    const value = await field.inputValue();
    if (value.includes(text)) return value;
  }
  throw new Error(`the field never held "${text}"; it holds "${await field.inputValue()}"`);
}

async function download(page, button) {
  const [file] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: button }).click()]);
  return readFile(await file.path(), 'utf8');
}

test('the extension loads: its worker runs, the panel is ready with no error, its CSP holds, and it may reach only this machine until asked', async () => {
  assert.match(worker.url(), /^chrome-extension:\/\/[a-p]{32}\/background\.js$/);
  const { page, problems } = await openPanel();
  const manifest = await page.evaluate(() => chrome.runtime.getManifest());
  assert.equal(manifest.manifest_version, 3);
  assert.equal(manifest.content_security_policy.extension_pages, "script-src 'self' 'wasm-unsafe-eval'; object-src 'self'");
  assert.deepEqual(manifest.permissions.sort(), ['contextMenus', 'sidePanel', 'storage']);
  // The engine is wasm shipped inside the extension: the protocol list comes from it.
  const options = await page.getByLabel('Protocol').locator('option').allTextContents();
  assert.ok(options.includes('round-robin') && options.includes('rotating-challenger'), options.join());
  // No host but this machine until the person asks for one.
  const reach = await page.evaluate(async () => Promise.all(['http://127.0.0.1:8080/*', 'http://localhost:11434/*', 'https://api.openai.com/*', 'https://example.com/*']
    .map((origin) => chrome.permissions.contains({ origins: [origin] }))));
  assert.deepEqual(reach, [true, true, false, false]);
  await assertClean(page, problems);
  // The CSP is enforced, not just declared: no string evaluated as code
  // (a timer's string runs as the page's own task, where the CSP applies;
  // this test's evaluate is the debugger's and is exempt), no inline script.
  await page.evaluate(() => {
    setTimeout('window.stringRan = true', 0);
    const script = document.createElement('script');
    script.textContent = 'window.inlineRan = true;';
    document.head.append(script);
  });
  await page.waitForTimeout(200); // long enough for the timer: a check that something did not happen
  assert.deepEqual(await page.evaluate(() => [window.stringRan, window.inlineRan]), [undefined, undefined]);
  const violations = await page.evaluate(() => window.cspViolations);
  assert.ok(violations.includes('script-src eval') && violations.includes('script-src-elem inline'), violations.join());
  assert.deepEqual(workerLog.filter((line) => line.startsWith('error')), []);
  await page.close();
});

test('the side panel runs a debate against the test server and shows the synthesis; the key typed once is used, kept in session storage, never synced, stored or logged', async () => {
  const server = await startTestServer({ models: {} });
  const { page, problems } = await openPanel();
  await clearStorage(page);
  try {
    await fillForm(page, {
      Endpoint: `${server.url}/v1`, 'API key': KEY, Models: 'alpha, beta', Judge: 'gamma',
      Protocol: 'round-robin', Rounds: '1', Question: 'Tabs or spaces?',
    });
    await page.getByRole('button', { name: 'Run debate' }).click();
    assert.match(await outcomeOf(page), /Completed/);
    await page.getByRole('status').filter({ hasText: 'Finished.' }).waitFor();
    const synthesis = await page.locator('#synthesis .card .text').textContent();
    assert.ok(synthesis.trim().length > 0, 'the judge wrote a synthesis');

    const { requests } = await server.stats();
    assert.equal(requests.length, 3, 'two seats and the judge');
    assert.ok(requests.every((r) => r.authorization === `Bearer ${KEY}`), 'the key went to the endpoint with each call');
    const kept = await storage(page);
    assert.deepEqual(kept.sync, {}, 'nothing is synced');
    assert.equal(kept.session['agon.apiKey'], KEY, 'the key is kept for the browser session only');
    assert.ok(!JSON.stringify(kept.local).includes(KEY), 'the key is not in local storage, nor in the kept journal');
    assert.equal(kept.local['agon.debate'].running, false, 'the finished debate is kept, not to be continued');
    assert.equal(kept.local['agon.debate'].journal, await download(page, 'Download journal'));
    // "remember" moves it to local storage, and back.
    await page.getByLabel('remember').check();
    assert.equal((await storage(page)).local['agon.apiKey'], KEY);
    assert.equal((await storage(page)).session['agon.apiKey'], undefined);
    await page.getByLabel('remember').uncheck();
    assert.equal((await storage(page)).local['agon.apiKey'], undefined);
    assert.ok(!everyLog.some((line) => line.includes(KEY)), 'no console line holds the key');
    await assertClean(page, problems);
  } finally {
    server.stop();
    await page.close();
  }
});

test('"Debate this with agon" on selected text puts the selection into the form as context, with an editable question; the models get it', async () => {
  const server = await startTestServer({ models: {} });
  const { page, problems } = await openPanel();
  await clearStorage(page);
  try {
    // The context menu's click handler, as Chromium calls it (headless has no menu to click).
    const selection = 'Rust has no garbage collector. <img src=x onerror="window.owned=1">';
    await worker.evaluate(([text]) => debateSelection(
      { menuItemId: 'agon-debate-selection', selectionText: text },
      { url: 'https://example.com/post?token=secret#part', title: 'A post' }), [selection]);
    // The open panel takes it at once; the question is the person's to edit.
    assert.equal(await valueHolding(page.getByLabel('Context'), 'garbage collector'), `From A post — https://example.com/post:\n\n${selection}`);
    assert.match(await page.getByLabel('Question').inputValue(), /What is right/);
    assert.equal(await page.evaluate(() => window.owned), undefined, 'the selection is text, never markup');
    assert.equal((await storage(page)).session['agon.context'], undefined, 'the handover is consumed');
    await fillForm(page, {
      Endpoint: `${server.url}/v1`, Models: 'alpha', Judge: '', Protocol: 'round-robin', Rounds: '1',
      Question: 'Is this claim right?',
    });
    await page.getByRole('button', { name: 'Run debate' }).click();
    assert.match(await outcomeOf(page), /Completed/);
    const [request] = (await server.stats()).requests;
    const prompt = JSON.stringify(request.messages);
    assert.ok(prompt.includes('Is this claim right?') && prompt.includes('Rust has no garbage collector.'), prompt);
    assert.ok(!prompt.includes('token=secret'), 'the page URL goes without its query');

    await assertClean(page, problems);
    await page.close();

    // With no panel open, the selection waits for the panel the click opens.
    await worker.evaluate(() => debateSelection({ menuItemId: 'agon-debate-selection', selectionText: 'Second text.' }, {}));
    const later = await openPanel();
    await valueHolding(later.page.getByLabel('Context'), 'Second text.');
    await assertClean(later.page, later.problems);
    await later.page.close();
  } finally {
    server.stop();
    if (!page.isClosed()) await page.close();
  }
});

test('closing the panel mid-debate and opening it again loses no answered turn: it resumes from the kept journal and ends as an uninterrupted run does', async () => {
  // Replies follow from the request alone, so both runs must end byte for byte alike.
  const config = { models: {}, latency_ms: 600, replies_from_prompt: true };
  const form = (server) => ({
    Endpoint: `${server.url}/v1`, 'API key': '', Models: 'alpha, beta, gamma', Judge: 'delta',
    Protocol: 'round-robin', Rounds: '3', Question: 'Should we rewrite it in Rust?',
  });

  const whole = await startTestServer(config);
  const first = await openPanel();
  await clearStorage(first.page);
  await fillForm(first.page, form(whole));
  await first.page.getByRole('button', { name: 'Run debate' }).click();
  assert.match(await outcomeOf(first.page), /Completed/);
  const expected = await download(first.page, 'Download transcript (JSON)');
  const calls = (await whole.stats()).requests.length;
  whole.stop();
  await first.page.close();

  const broken = await startTestServer(config);
  const { page } = await openPanel();
  await fillForm(page, form(broken));
  await page.getByRole('button', { name: 'Run debate' }).click();
  // Close it once some turns are answered and some are not.
  await page.locator('.card[data-state="done"]').nth(3).waitFor();
  const answered = await page.locator('.card[data-state="done"]').count();
  const speaking = await page.locator('.card:not([data-state])').count();
  assert.equal(await page.locator('#outcome .body').textContent(), '', 'closed mid-debate');
  const keptAtClose = (await storage(page)).local['agon.debate'];
  await page.close();
  assert.equal(keptAtClose.running, true);

  const reopened = await openPanel();
  await reopened.page.getByRole('status').filter({ hasText: 'Resumed from the kept journal' }).waitFor();
  assert.match(await outcomeOf(reopened.page), /Completed/);
  await reopened.page.getByRole('status').filter({ hasText: 'Finished.' }).waitFor();
  assert.equal(await download(reopened.page, 'Download transcript (JSON)'), expected, 'the same debate as without the interruption');
  assert.ok((await reopened.page.locator('.card[data-state="done"]').count()) >= answered);

  // Only the calls in flight at the close were made again.
  const requests = (await broken.stats()).requests;
  const asked = new Map();
  for (const r of requests) asked.set(`${r.model} ${JSON.stringify(r.messages)}`, (asked.get(`${r.model} ${JSON.stringify(r.messages)}`) ?? 0) + 1);
  const again = [...asked.values()].filter((n) => n > 1).length;
  assert.ok(again <= speaking, `${again} calls repeated, ${speaking} were in flight at the close`);
  assert.ok(requests.length >= calls && requests.length <= calls + speaking, `${requests.length} calls against ${calls} uninterrupted`);
  broken.stop();
  await assertClean(reopened.page, reopened.problems);
  await reopened.page.close();
});

test('Open journal replays a golden case in the panel; the transcript equals the golden one byte for byte', async () => {
  const { page, problems } = await openPanel();
  await clearStorage(page);
  await page.getByLabel('Open journal').setInputFiles(join(golden, 'round-robin-three-seats', 'journal.ndjson'));
  await page.getByRole('status').filter({ hasText: 'Replayed' }).waitFor();
  assert.equal(await download(page, 'Download transcript (JSON)'),
    await readFile(join(golden, 'round-robin-three-seats', 'transcript.json'), 'utf8'));
  await assertClean(page, problems);
  await page.close();
});

test('a kept journal the engine cannot read does not stop the panel: it says so and is Ready', async () => {
  const first = await openPanel();
  await first.page.evaluate(() => chrome.storage.local.set({ 'agon.debate': { journal: 'not a journal', endpoint: 'http://127.0.0.1:9/v1', timeout_seconds: 5, running: false } }));
  await first.page.close();
  const { page, problems } = await openPanel();
  assert.match(await page.locator('#status').textContent(), /^The kept debate could not be reopened \(.+\)\. Ready\.$/);
  assert.equal(await page.getByRole('button', { name: 'Run debate' }).isEnabled(), true);
  await assertClean(page, problems);
  await clearStorage(page);
  await page.close();
});

test('a debate against the real local model in the side panel ends with a synthesis (saves a screenshot)', async () => {
  const endpoint = process.env.OPENAI_BASE_URL;
  assert.ok(endpoint, 'set OPENAI_BASE_URL to the local model (scripts/test-web.sh does)');
  const { page, problems } = await openPanel();
  await clearStorage(page);
  await fillForm(page, {
    Endpoint: endpoint, 'API key': '', Models: 'smollm2, smollm2', Judge: 'smollm2',
    Protocol: 'round-robin', Rounds: '1', 'Max tokens': '60',
    Question: 'Should a five-person startup write its backend in Rust or in Go?',
  });
  await page.getByRole('button', { name: 'Run debate' }).click();
  assert.match(await outcomeOf(page, 400_000), /Completed|Consensus reached/);
  const synthesis = await page.locator('#synthesis .card .text').textContent();
  assert.ok(synthesis.trim().length > 0, 'the judge wrote a synthesis');
  await page.locator('#debate').scrollIntoViewIfNeeded();
  await page.screenshot({ path: screenshot, fullPage: true });
  await assertClean(page, problems);
  await page.close();
});
