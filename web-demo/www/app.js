// The page around the engine: read the form, show the events the Rust host
// loop hands over, ask the people seated in the debate, offer downloads. No
// debate logic lives here.
// Model text reaches the page as markup only through markdownToHtml, the
// Rust renderer that turns raw HTML into text and keeps only safe links.
// What is kept where, and what may be reached, is host.js's: the page's
// and the browser extension's differ, this file does not.
import init, { Council, documentInfo, markdownToHtml, phaseHeading, protocols, roleFields, specFromForm } from './agon_web_demo.js';
import { allowEndpoint, claimDebate, loadDebate, loadHistory, loadKey, onContext, saveDebate, saveHistory, saveKey } from './host.js';

const $ = (selector) => document.querySelector(selector);
const COLOURS = 8; // .seat-0 … .seat-7 in style.css
// The Protocol select's entry for a document of one's own: no protocol name
// has parentheses, so it cannot stand for a built-in.
const OWN = '(own)';

let council;
let catalog = [];
let ownInfo = null; // the pasted document as the core describes it, once it checks
let cards = new Map(); // request id -> card element
let seats = new Map(); // seat id -> { name, model, colour }
let asking = new Map(); // request id -> reject, for each person asked and not answered yet
let following = true; // the newest round's tab opens as it starts, until the person picks one
let kept = null; // the running debate as host.js keeps it: { journal, endpoint, timeout_seconds, running }
let keeping = Promise.resolve(); // saves go out one after another, in order
let current = null; // the id of the past debate shown, once it is in the list
let shown = null; // the session id of the debate the engine holds (run or reopened); null for an opened journal file
const HISTORY_SIZE = 30;

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** Show one round's panel (or every panel, for "all"), and mark its tab. */
function selectTab(key) {
  for (const tab of document.querySelectorAll('#round-tabs [role="tab"]')) {
    const selected = tab.dataset.key === key;
    tab.setAttribute('aria-selected', String(selected));
    tab.tabIndex = selected ? 0 : -1;
  }
  for (const panel of document.querySelectorAll('#rounds-view > .round')) panel.hidden = key !== 'all' && panel.dataset.key !== key;
}

function tab(key, label) {
  const button = element('button', '', label);
  button.type = 'button';
  button.id = `tab-${key}`;
  button.dataset.key = key;
  button.setAttribute('role', 'tab');
  button.setAttribute('aria-selected', 'false');
  if (key !== 'all') button.setAttribute('aria-controls', `round-${key}`);
  button.addEventListener('click', () => {
    const tabs = [...document.querySelectorAll('#round-tabs [role="tab"]')];
    following = button === tabs.at(-1); // picking the newest keeps following the debate
    selectTab(key);
  });
  $('#round-tabs').append(button);
  $('#round-tabs').hidden = false;
  return button;
}

/** The panel for a round's phase, with its tab; headings are the core's. */
function section(round, phase) {
  const key = `${phase}-${round}`;
  let found = document.getElementById(`round-${key}`);
  if (!found) {
    const heading = phaseHeading(phase, round);
    found = element('section', `round phase-${phase}`);
    found.id = `round-${key}`;
    found.dataset.key = key;
    found.setAttribute('role', 'tabpanel');
    found.setAttribute('aria-labelledby', `tab-${key}`);
    found.append(element('h2', '', heading));
    found.append(element('div', 'cards'));
    $('#rounds-view').append(found);
    tab(key, heading);
    if (following) selectTab(key);
    else found.hidden = document.querySelector('#round-tabs [aria-selected="true"]')?.dataset.key !== 'all';
  }
  return found;
}

/** A card for one call: who speaks (role or seat name), on which model, and its colour. */
function card(id, parent, seatId, model, role, note) {
  const seat = seats.get(seatId) ?? { name: seatId, colour: 'judge' };
  const node = element('article', `card role-${role} seat-${seat.colour}`);
  node.dataset.request = id;
  node.dataset.seat = seatId;
  const head = element('header');
  head.append(element('strong', 'seat', seat.name), element('span', 'model', model));
  if (note) head.append(element('span', 'note', note));
  head.append(element('span', 'state', 'speaking…'));
  node.append(head, element('div', 'text'));
  parent.append(node);
  cards.set(id, node);
  return node;
}

/** Markdown from a model, shown as safe HTML; links open apart from the page. */
function showMarkdown(target, markdown) {
  target.innerHTML = markdownToHtml(markdown);
  target.classList.add('markdown');
  for (const link of target.querySelectorAll('a')) {
    link.target = '_blank';
    link.rel = 'noopener noreferrer';
  }
}

function showResults() {
  const html = council.resultsHtml() ?? '';
  $('#results .body').innerHTML = html; // the core's Markdown through markdownToHtml
  $('#results').hidden = html === '';
  const pictures = council.picturesHtml() ?? '';
  $('#pictures .body').innerHTML = pictures; // the core's SVG, model text escaped in it
  $('#pictures').hidden = pictures === '';
}

function setState(node, state, text) {
  node.dataset.state = state;
  node.querySelector('.state').textContent = text;
}

function reset() {
  closeAsks('no longer asked');
  cards = new Map();
  seats = new Map();
  following = true;
  $('#rounds-view').replaceChildren();
  $('#round-tabs').replaceChildren();
  $('#round-tabs').hidden = true;
  tab('all', 'All rounds');
  $('#synthesis .body').replaceChildren();
  $('#results .body').replaceChildren();
  $('#results').hidden = true;
  $('#pictures .body').replaceChildren();
  $('#pictures').hidden = true;
  $('#outcome .body').textContent = '';
  $('#outcome').dataset.kind = '';
  $('#event-log ol').replaceChildren();
}

function onEvent(event) {
  $('#event-log ol').append(element('li', '', JSON.stringify(event)));
  switch (event.type) {
    case 'debate-started':
      $('#status').textContent = `Debating (${event.protocol}): ${event.question}`;
      // Each seat keeps its colour for the whole debate; roles show their names.
      event.participants.forEach((p, i) => seats.set(p.id, { name: p.name || p.id, model: p.model, colour: i % COLOURS }));
      if (event.judge) seats.set(event.judge.id, { name: event.judge.name || 'judge', model: event.judge.model, colour: 'judge' });
      break;
    case 'round-started': {
      const head = section(event.round, event.phase).querySelector('h2');
      if (event.challenger) head.append(element('span', 'challenger-note', ` · challenger: ${event.challenger}`));
      break;
    }
    case 'turn-started': {
      // The judge confirming an apparent consensus sits in the round it checks.
      const confirming = event.phase === 'confirmation';
      const node = card(event.id, section(event.round, confirming ? 'deliberation' : event.phase).querySelector('.cards'),
        event.speaker, event.model, confirming ? 'judge' : event.challenger ? 'challenger' : 'debater',
        confirming ? 'confirming the consensus' : '');
      if (event.challenger) node.querySelector('header').append(element('span', 'badge', 'challenger'));
      break;
    }
    case 'judge-started':
      // The engine words the heading: never the plain one once a call failed.
      $('#synthesis-title').textContent = event.heading;
      card(event.id, $('#synthesis .body'), event.speaker, event.model, 'judge');
      break;
    case 'turn-completed': {
      const node = cards.get(event.id);
      if (node) { showMarkdown(node.querySelector('.text'), event.text); setState(node, 'done', 'answered'); }
      break;
    }
    case 'turn-failed': {
      const node = cards.get(event.id);
      if (node) setState(node, 'failed', `failed (${event.kind}): ${event.message}`);
      break;
    }
    case 'consensus-checked': { // The decision, then each counted seat's verdict and why.
      const verdict = event.judge
        ? (event.reached ? 'Consensus (confirmed by the judge)' : 'The reader saw agreement; the judge disagreed')
        : (event.reached ? 'Consensus' : 'No consensus');
      const check = element('div', 'consensus');
      check.append(element('p', '', `${verdict}: ${event.reason}`));
      const seats = element('ul', 'stances');
      for (const s of event.seats) {
        const quote = s.evidence ? ` — “${s.evidence.quote}”` : '';
        seats.append(element('li', `verdict-${s.verdict}`, `${s.seat}: ${s.verdict.replaceAll('-', ' ')} (${s.source})${quote}`));
      }
      check.append(seats, element('p', 'rule', `Rule: ${event.rule}.`));
      section(event.round, 'deliberation').append(check);
      break;
    }
    case 'warning': {
      const note = element('p', 'warning', `Warning${event.speaker ? ` (${event.speaker})` : ''}: ${event.message}`);
      // Round 0 before any turn (a judge sharing a panel model) is about the whole
      // debate: it sits above the rounds instead of opening a tab of its own.
      if (event.round === 0 && !document.getElementById(`round-${event.phase}-0`)) $('#rounds-view').prepend(note);
      else section(event.round, event.phase).append(note);
      break;
    }
    case 'choice-made':
      $('#rounds-view').append(element('p', 'note', `The seed chose ${event.what}: ${event.value}`));
      break;
    case 'result-recorded': // A protocol's own result: the core renders them all.
      showResults();
      break;
    case 'debate-ended': {
      const { kind, headline, synthesis_heading, reason, failures = [] } = event.outcome;
      const lines = [`${headline} — ${reason}`];
      $('#synthesis-title').textContent = synthesis_heading;
      for (const f of failures) lines.push(`Seat ${f.speaker} failed in ${f.phase} round ${f.round} (${f.kind}): ${f.message}`);
      $('#outcome .body').textContent = lines.join('\n');
      $('#outcome').dataset.kind = kind;
      showResults();
      break;
    }
    default: // Events this page does not know yet are still in the log.
  }
}

function onText(id, piece) {
  cards.get(id)?.querySelector('.text').append(piece);
}

/**
 * A person's turn (model human/NAME): their card shows what they are asked,
 * as text (it holds model replies), and a box for the answer. Resolves to
 * what they send; the engine's turn-completed then renders it like any reply.
 */
function askPerson(id, who, prompt) {
  const node = cards.get(id);
  if (!node) return Promise.reject(new Error('the page has no card for this turn'));
  return new Promise((resolve, reject) => {
    asking.set(id, reject);
    setState(node, 'asking', 'your turn');
    const asked = element('details', 'prompt');
    asked.append(element('summary', '', 'What you are asked'), element('pre', '', prompt));
    const form = element('form', 'answer');
    const box = element('textarea');
    box.id = `answer-${id}`;
    box.rows = 6;
    const label = element('label', '', `Your answer as ${who}`);
    label.htmlFor = box.id;
    const send = element('button', '', 'Send answer');
    send.type = 'submit';
    form.append(label, box, element('small', 'help', 'Ctrl+Enter sends too. Sending nothing fails this turn.'), send);
    box.addEventListener('keydown', (key) => {
      if (key.key === 'Enter' && (key.ctrlKey || key.metaKey)) form.requestSubmit();
    });
    form.addEventListener('submit', (submit) => {
      submit.preventDefault();
      asking.delete(id);
      // The answer takes the box's place, as text until the engine hands it back.
      form.remove();
      node.querySelector('.text').textContent = box.value;
      setState(node, 'sent', 'sent');
      resolve(box.value);
    });
    const ask = element('div', 'ask');
    ask.append(asked, form);
    node.querySelector('.text').before(ask);
    // A person must see their box: open the round it is in, and focus it
    // unless someone is typing elsewhere (another person's box).
    const panel = node.closest('#rounds-view > .round');
    if (panel?.hidden) selectTab(panel.dataset.key);
    if (!document.activeElement?.matches('textarea, input, select')) box.focus();
  });
}

/** Take the answer boxes away from everyone still asked (Stop, the run's end). */
function closeAsks(why) {
  for (const [id, reject] of asking) {
    const node = cards.get(id);
    if (node) {
      node.querySelector('.ask form')?.remove();
      setState(node, 'failed', `not answered (${why})`);
    }
    reject(new Error(why));
  }
  asking = new Map();
}

function rememberKey() {
  return saveKey($('#api-key').value, $('#remember').checked);
}

function setRunning(running) {
  $('#run').disabled = running;
  $('#follow-up').disabled = running || !finishedTranscript();
  $('#stop').disabled = !running;
  // Downloads work mid-run too: the journal of a stopped run can be reopened.
  for (const button of document.querySelectorAll('[data-download]')) button.disabled = !council.journal();
}

/**
 * Hand the debate to host.js, so that a closed panel loses no answered call:
 * `journal` is the engine's after an answer; without one, the last kept
 * (the engine may hold a replayed journal by then).
 */
function keep(running, journal = kept?.journal) {
  if (!kept) return keeping;
  kept = { ...kept, running, journal };
  const record = kept;
  keeping = keeping.then(() => saveDebate(record)).catch((error) => {
    $('#status').textContent = `Warning: the debate could not be kept (${error.message ?? error}); download its journal to keep it.`;
  });
  return keeping;
}

/** Every event of a live run; after each answer or failure, the journal is kept. */
function onLiveEvent(event) {
  onEvent(event);
  if (['turn-completed', 'turn-failed', 'debate-ended'].includes(event.type)) keep(event.type !== 'debate-ended', council.journal());
}

// Files as context: read as text when chosen or dropped, so a binary one is
// refused by name at once; the core frames, caps and hashes them.
let chosenFiles = [];

/** A file's bytes as `{ path, text }`, or an error naming it when it is not UTF-8 text. */
async function readContextFile(file) {
  let text;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(await file.arrayBuffer());
  } catch {
    text = '\0';
  }
  if (text.includes('\0')) throw new Error(`the file ${file.name} is binary, not text: only text files can be context`);
  return { path: file.name, text };
}

async function addFiles(list) {
  for (const file of list) {
    try {
      const read = await readContextFile(file);
      chosenFiles = chosenFiles.filter((f) => f.path !== read.path).concat(read);
      $('#status').textContent = '';
    } catch (error) {
      $('#status').textContent = `Not added: ${error.message}`;
    }
  }
  showFiles();
}

function showFiles() {
  const list = $('#files-list');
  list.replaceChildren(...chosenFiles.map((f) => {
    const item = document.createElement('span');
    item.className = 'chosen-file';
    item.textContent = `${f.path} (${new TextEncoder().encode(f.text).length} bytes) `;
    const remove = document.createElement('button');
    remove.type = 'button';
    remove.textContent = '×';
    remove.setAttribute('aria-label', `Remove ${f.path}`);
    remove.addEventListener('click', () => { chosenFiles = chosenFiles.filter((c) => c !== f); showFiles(); });
    item.append(remove);
    return item;
  }));
}

$('#files').addEventListener('change', async (e) => { await addFiles(e.target.files); e.target.value = ''; });
$('#files-drop').addEventListener('dragover', (e) => e.preventDefault());
$('#files-drop').addEventListener('drop', (e) => { e.preventDefault(); addFiles(e.dataTransfer.files); });

async function run(submit) {
  submit.preventDefault();
  reset();
  const own = $('#protocol').value === OWN;
  if (own && !$('#protocol-document').value.trim()) {
    $('#status').textContent = 'Cannot start: paste a protocol document, or load one from a file.';
    return;
  }
  let spec;
  try {
    spec = specFromForm({
      models: $('#models').value, judge: $('#judge').value, protocol: $('#protocol').value,
      document: own ? $('#protocol-document').value : '',
      rounds: $('#rounds').value ? Number($('#rounds').value) : null, question: $('#question').value,
      context: $('#context').value, files: chosenFiles, follows: followsDebate, max_tokens: Number($('#max-tokens').value), effort: $('#effort').value,
      options: Object.fromEntries([...document.querySelectorAll('#protocol-options [data-option]')].map((f) => [f.dataset.option, f.value])),
      role_models: Object.fromEntries([...document.querySelectorAll('#role-models [data-role]')].map((f) => [f.dataset.role, f.value])),
      roles: chosenRoles.map((r) => r.text), domain: $('#domain').value, blind: $('#blind').checked,
    });
  } catch (error) {
    $('#status').textContent = `Cannot start: ${error.message}`;
    return;
  }
  const endpoint = $('#endpoint').value;
  // Before any await: an extension asks for the endpoint's origin here, and
  // only the click's own gesture may ask.
  const allowing = allowEndpoint(endpoint);
  await rememberKey();
  const allowed = await allowing;
  if (!allowed.allowed) {
    $('#status').textContent = `Cannot start: ${allowed.why}`;
    return;
  }
  if (!(await claimDebate())) {
    $('#status').textContent = 'Cannot start: another agon panel is running a debate; stop it there first.';
    return;
  }
  const timeout = Number($('#timeout').value) || 120;
  askFollowUp(null);
  await follow({ id: Date.now().toString(36), endpoint, timeout_seconds: timeout },
    () => council.run(spec, endpoint, $('#api-key').value, timeout, onLiveEvent, onText, askPerson));
}

/**
 * The debate the next run follows up ("Ask a follow-up"): `{session,
 * transcript, files}` for the core, which quotes its question, synthesis and last
 * words in every prompt; null for a debate of its own.
 */
let followsDebate = null;

/** The transcript the engine holds, when its debate has ended; else null. */
function finishedTranscript() {
  try {
    const transcript = JSON.parse(council.transcriptJson() ?? 'null');
    return transcript?.outcome ? transcript : null;
  } catch {
    return null;
  }
}

/** The files the debate on screen read, as its journal's spec holds them (the engine checks each against the transcript). */
function filesRead() {
  try {
    return JSON.parse((council.journal() ?? '').split('\n', 1)[0]).spec?.files ?? [];
  } catch {
    return [];
  }
}

/**
 * Make the next run a follow-up on `transcript` (null: a debate of its own). Unless the form
 * gives its own, the engine takes the parent's context and files.
 */
function askFollowUp(transcript) {
  followsDebate = transcript ? { session: shown ?? Date.now().toString(36), transcript, files: filesRead() } : null;
  const note = $('#follows-note');
  note.hidden = !transcript;
  note.replaceChildren();
  if (transcript) {
    // As text: the question is the user's or a file's, never markup.
    const cancel = element('button', '', '×');
    cancel.type = 'button';
    cancel.setAttribute('aria-label', 'Cancel the follow-up');
    cancel.addEventListener('click', () => askFollowUp(null));
    note.append(`Follows up: ${transcript.question.split('\n')[0].slice(0, 120)} `, cancel);
    $('#question').value = '';
    $('#question').focus();
  }
}

$('#follow-up').addEventListener('click', () => askFollowUp(finishedTranscript()));

/** Go on with a kept debate the panel was closed on: the debate so far, then its unanswered calls. */
async function resume(record) {
  reset();
  $('#endpoint').value = record.endpoint;
  $('#timeout').value = record.timeout_seconds;
  await follow(record, () => council.resume(record.journal, record.endpoint, $('#api-key').value,
    record.timeout_seconds, onLiveEvent, onText, askPerson), 'Resumed from the kept journal; answered calls are not made again.');
}

/** Start a run (`start` returns the engine's promise), keep it, and report how it ended. */
async function follow(record, start, note) {
  try {
    const running = start();
    kept = record;
    shown = record.id;
    keep(true, council.journal());
    setRunning(true);
    if (note) $('#status').textContent = `${note} ${$('#status').textContent}`;
    const how = await running;
    $('#status').textContent = how === 'stopped' ? 'Stopped. The journal keeps every answered call.' : 'Finished.';
    if (how === 'stopped' && !$('#outcome .body').textContent) $('#outcome .body').textContent = 'Stopped before the end: no outcome.';
  } catch (error) {
    $('#status').textContent = `Error: ${error.message ?? error}`;
  } finally {
    closeAsks($('#status').textContent.startsWith('Stopped') ? 'stopped' : 'the run ended');
    setRunning(false);
    // Stopped, failed or done: it is shown when the panel opens again, not continued.
    await keep(false);
    await addToHistory(record.id ?? Date.now().toString(36));
  }
}

/**
 * Put the debate the engine holds at the top of the past debates, titled by
 * its question (as text: it is shown with textContent only). A list the
 * browser cannot hold loses its oldest entries first.
 */
async function addToHistory(id) {
  const journal = council.journal();
  if (!journal) return;
  let transcript;
  try {
    transcript = JSON.parse(council.transcriptJson());
  } catch {
    return;
  }
  const entry = {
    id,
    title: transcript.question.split('\n')[0].slice(0, 120),
    at: new Date().toISOString(),
    outcome: transcript.outcome?.headline ?? 'Stopped before the end',
    journal,
  };
  let list = [entry, ...(await loadHistory()).filter((e) => e.id !== id)].slice(0, HISTORY_SIZE);
  for (;;) {
    try {
      await saveHistory(list);
      break;
    } catch (error) {
      if (list.length <= 1) {
        $('#status').textContent = `${$('#status').textContent} This debate was not added to the past debates (${error.message ?? error}); download its journal to keep it.`;
        return;
      }
      list = list.slice(0, -1);
    }
  }
  current = id;
  await showHistory();
}

async function showHistory() {
  const list = await loadHistory();
  const items = list.map((entry) => {
    const item = element('li');
    if (entry.id === current) item.setAttribute('aria-current', 'true');
    const open = element('button', 'open', entry.title || '(no question)');
    open.type = 'button';
    open.addEventListener('click', () => reopen(entry));
    const when = element('small', '', ` ${entry.at.slice(0, 16).replace('T', ' ')} · ${entry.outcome} `);
    const exported = element('button', '', 'Export');
    exported.type = 'button';
    exported.setAttribute('aria-label', `Export the journal of “${entry.title}”`);
    exported.addEventListener('click', () => save(entry.journal, 'debate.ndjson', 'application/x-ndjson'));
    const remove = element('button', '', 'Delete');
    remove.type = 'button';
    remove.setAttribute('aria-label', `Delete “${entry.title}”`);
    remove.addEventListener('click', () => forget(entry.id));
    item.append(open, when, exported, remove);
    return item;
  });
  $('#history-list').replaceChildren(...items);
  $('#history').hidden = list.length === 0;
}

/** Show a past debate again from its journal, calling no model. */
function reopen(entry) {
  if (!$('#stop').disabled) return; // not over a running debate
  reset();
  try {
    council.replay(entry.journal, onEvent);
    current = entry.id;
    shown = entry.id;
    $('#status').textContent = `Reopened “${entry.title}” from its kept journal, without calling any model.`;
  } catch (error) {
    $('#status').textContent = `Cannot reopen that debate: ${error.message ?? error}`;
  }
  setRunning(false);
  showHistory();
}

async function forget(id) {
  await saveHistory((await loadHistory()).filter((e) => e.id !== id));
  if (current === id) current = null;
  await showHistory();
}

async function openJournal() {
  const file = $('#open-journal').files[0];
  if (!file) return;
  reset();
  shown = null;
  try {
    council.replay(await file.text(), onEvent);
    $('#status').textContent = `Replayed ${file.name} without calling any model.`;
    if (!$('#outcome .body').textContent) $('#outcome .body').textContent = 'The journal ends before the debate did: no outcome yet.';
  } catch (error) {
    $('#status').textContent = `Cannot open the journal: ${error.message ?? error}`;
  }
  setRunning(false);
}

function download(what) {
  const [text, name, type] = {
    markdown: [council.transcriptMarkdown(), 'debate.md', 'text/markdown'],
    json: [council.transcriptJson(), 'debate.json', 'application/json'],
    adr: [council.adrMarkdown(), 'decision.md', 'text/markdown'],
    page: [council.pageHtml(), 'debate.html', 'text/html'],
    journal: [council.journal(), 'debate.ndjson', 'application/x-ndjson'],
  }[what];
  save(text, name, type);
}

function save(text, name, type) {
  if (text === undefined) return;
  const link = element('a');
  link.href = URL.createObjectURL(new Blob([text], { type }));
  link.download = name;
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 1000);
}

/**
 * Check the pasted document with the engine and say what it found next to
 * the field: the protocol's name, or the JSON path of the mistake.
 */
function checkOwnDocument() {
  const field = $('#protocol-document');
  const check = $('#protocol-document-check');
  if (!field.value.trim()) {
    check.textContent = '';
    delete check.dataset.valid;
    field.removeAttribute('aria-invalid');
    ownInfo = null;
  } else {
    try {
      ownInfo = documentInfo(field.value); // checked as checkDocument checks it
      const { name, summary } = ownInfo;
      check.textContent = `The engine accepts ${name}${summary ? `: ${summary}` : '.'}`;
      check.dataset.valid = 'true';
      field.setAttribute('aria-invalid', 'false');
    } catch (error) {
      ownInfo = null;
      check.textContent = `Not a protocol the engine can run: ${error.message ?? error}`;
      check.dataset.valid = 'false';
      field.setAttribute('aria-invalid', 'true');
    }
  }
  protocolFields();
}

/** The role files chosen (`{ name, text }`): they seat the debate in place of the Models. */
let chosenRoles = [];

async function loadRoleFiles() {
  chosenRoles = await Promise.all([...$('#role-files').files].map(async (f) => ({ name: f.name, text: await f.text() })));
  roleModelFields();
}

async function loadProtocolFile() {
  const file = $('#protocol-file').files[0];
  if (!file) return;
  $('#protocol-document').value = await file.text();
  checkOwnDocument();
}

/**
 * The chosen protocol's own fields, as the core describes them: a built-in's
 * from its catalog, a document's from the document (its adversary, its
 * consensus mode). Typing in the document keeps the fields and what is in
 * them while the options it takes stay the same.
 */
function protocolFields() {
  const own = $('#protocol').value === OWN;
  $('#own-protocol').hidden = !own;
  const protocol = own ? ownInfo : catalog.find((p) => p.name === $('#protocol').value);
  // Empty rounds run the protocol's own number (role-council its three), as every host does.
  $('#rounds').placeholder = protocol
    ? `empty: ${protocol.default_rounds} (${protocol.round_unit})`
    : "empty: the protocol's default";
  const box = $('#protocol-options');
  // A document renamed as it is typed keeps its fields: only its options shape them.
  const shape = JSON.stringify([own, own ? null : protocol?.name, protocol?.options]);
  if (box.dataset.shape === shape) return;
  box.dataset.shape = shape;
  box.replaceChildren(element('legend', '', 'Protocol options'));
  for (const { name, kind, default: fallback, help } of protocol?.options ?? []) {
    const id = `option-${name}`;
    let field;
    if (kind === 'flag' || kind.choice) {
      field = element('select');
      field.append(element('option', '', `(default: ${fallback})`));
      field.firstChild.value = '';
      for (const word of kind.choice ?? ['true', 'false']) field.append(element('option', '', word));
    } else if (kind === 'texts' || kind === 'data') {
      field = element('textarea');
      field.rows = 2;
      field.placeholder = kind === 'texts' ? 'one per line' : 'JSON';
    } else {
      field = element('input');
      field.placeholder = fallback ? `default: ${fallback}` : '';
    }
    field.id = id;
    field.dataset.option = name;
    field.dataset.kind = kind.choice ? 'choice' : kind;
    field.required = !fallback;
    field.setAttribute('aria-describedby', `${id}-help`);
    const label = element('label', '', name);
    label.htmlFor = id;
    const about = element('small', 'help', `${help}${fallback ? '' : ' Required.'}`);
    about.id = `${id}-help`;
    box.append(label, field, about);
  }
  box.hidden = !protocol?.options.length;

  roleModelFields();
}

/** A model field per role: the role files' chosen, else the protocol's built-in roles, if it seats roles. */
function roleModelFields() {
  const own = $('#protocol').value === OWN;
  const protocol = own ? ownInfo : catalog.find((p) => p.name === $('#protocol').value);
  // Role files of one's own seat any protocol; else a protocol's built-in roles.
  let roles = null;
  try {
    roles = chosenRoles.length || (protocol && !own)
      ? roleFields(protocol?.name ?? '', chosenRoles.map((r) => r.text), chosenRoles.map((r) => r.name)) : null;
    $('#role-files-check').textContent = chosenRoles.length
      ? `Seated from ${chosenRoles.map((r) => r.name).join(', ')}: ${(roles ?? []).map((r) => r.name).join(', ')}.` : '';
  } catch (error) {
    $('#role-files-check').textContent = `Not used: ${error.message}`;
    chosenRoles = [];
    $('#role-files').value = '';
  }
  const models = $('#role-models');
  models.replaceChildren(element('legend', '', 'Role models'));
  for (const { id, name, model, debates } of roles ?? []) {
    const field = element('input');
    field.id = `role-model-${id}`;
    field.dataset.role = id;
    field.placeholder = debates ? `empty: the Models in turn (role file: ${model})` : 'empty: the Judge field, else the Models in turn';
    const label = element('label', '', `${name} model`);
    label.htmlFor = field.id;
    models.append(label, field);
  }
  models.hidden = !roles;
}

await init();
council = new Council();
catalog = protocols();
// The core says what each protocol takes; the page only shows it.
for (const { name, summary, min_seats, max_seats, options } of catalog) {
  const option = element('option', '', name);
  option.value = name;
  option.title = summary;
  option.dataset.minSeats = min_seats;
  if (max_seats !== null && max_seats !== undefined) option.dataset.maxSeats = max_seats;
  option.dataset.options = options.map((o) => o.name).join(' ');
  $('#protocol').append(option);
}
const ownOption = element('option', '', 'your own (a protocol document)');
ownOption.value = OWN;
$('#protocol').append(ownOption);
$('#protocol').value = 'rotating-challenger';
$('#protocol').addEventListener('change', protocolFields);
$('#protocol-document').addEventListener('input', checkOwnDocument);
$('#protocol-file').addEventListener('change', loadProtocolFile);
$('#role-files').addEventListener('change', loadRoleFiles);
protocolFields();
$('#round-tabs').addEventListener('keydown', (key) => { // arrows move between tabs
  const tabs = [...document.querySelectorAll('#round-tabs [role="tab"]')];
  const at = tabs.indexOf(document.activeElement);
  const step = { ArrowRight: 1, ArrowLeft: -1 }[key.key];
  if (at < 0 || !step) return;
  const next = tabs[(at + step + tabs.length) % tabs.length];
  next.focus();
  next.click();
});
const { key, remember } = await loadKey();
$('#api-key').value = key;
$('#remember').checked = remember;
$('#remember').addEventListener('change', rememberKey);
// Text handed over from elsewhere (the extension's "Debate this with agon"):
// it becomes the context, and the question stays the person's to edit.
onContext(({ context, question }) => {
  $('#context').value = context;
  if (question && !$('#question').dataset.edited) $('#question').value = question;
  $('#question').focus();
});
$('#question').addEventListener('input', () => { $('#question').dataset.edited = 'yes'; });
$('#debate-form').addEventListener('submit', run);
$('#stop').addEventListener('click', () => council.stop());
$('#open-journal').addEventListener('change', openJournal);
for (const button of document.querySelectorAll('[data-download]')) {
  button.addEventListener('click', () => download(button.dataset.download));
}
$('#run').disabled = false;
await showHistory();
// A debate kept from before (the panel was closed): go on with it if it was
// running and no other panel has it, else show it as it ended.
const before = await loadDebate();
if (before?.running && await claimDebate()) {
  resume(before);
} else if (before?.journal) {
  reset();
  try {
    council.replay(before.journal, onEvent);
    $('#status').textContent = before.running
      ? 'Another agon panel is running this debate; showing it as kept so far. Ready.'
      : 'Reopened the last debate from its kept journal. Ready.';
  } catch (error) { // a kept journal this engine cannot read must not stop the page
    $('#status').textContent = `The kept debate could not be reopened (${error.message ?? error}). Ready.`;
  }
  setRunning(false);
} else {
  $('#status').textContent = 'Ready.';
}
