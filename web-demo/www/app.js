// The page around the engine: read the form, show the events the Rust host
// loop hands over, offer downloads. No debate logic lives here.
import init, { Council, protocols, specFromForm } from './agon_web_demo.js';

const $ = (selector) => document.querySelector(selector);
const KEY = 'agon.apiKey';

let council;
let cards = new Map(); // request id -> card element

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function section(round, phase) {
  const key = `${phase}-${round}`;
  let found = document.getElementById(`round-${key}`);
  if (!found) {
    found = element('section', `round phase-${phase}`);
    found.id = `round-${key}`;
    // Opening phases (round 0) are named by their phase; later ones by round.
    found.append(element('h2', '', round === 0 ? `Opening: ${phase}` : phase === 'deliberation' ? `Round ${round}` : `Round ${round} · ${phase}`));
    found.append(element('div', 'cards'));
    $('#rounds-view').append(found);
  }
  return found;
}

function card(id, parent, role, title) {
  const node = element('article', `card role-${role}`);
  node.dataset.request = id;
  const head = element('header');
  head.append(element('strong', 'seat', title), element('span', 'state', 'speaking…'));
  node.append(head, element('div', 'text'));
  parent.append(node);
  cards.set(id, node);
  return node;
}

function setState(node, state, text) {
  node.dataset.state = state;
  node.querySelector('.state').textContent = text;
}

function reset() {
  cards = new Map();
  $('#rounds-view').replaceChildren();
  $('#synthesis .body').replaceChildren();
  for (const old of document.querySelectorAll('#synthesis .result')) old.remove();
  $('#outcome .body').textContent = '';
  $('#outcome').dataset.kind = '';
  $('#event-log ol').replaceChildren();
}

function onEvent(event) {
  $('#event-log ol').append(element('li', '', JSON.stringify(event)));
  switch (event.type) {
    case 'debate-started':
      $('#status').textContent = `Debating (${event.protocol}): ${event.question}`;
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
        confirming ? 'judge' : event.challenger ? 'challenger' : 'debater',
        confirming ? `${event.speaker} · confirming the consensus` : event.speaker);
      node.dataset.seat = event.speaker;
      if (event.challenger) node.querySelector('header').append(element('span', 'badge', 'challenger'));
      break;
    }
    case 'judge-started':
      // The engine words the heading: never the plain one once a call failed.
      $('#synthesis-title').textContent = event.heading;
      card(event.id, $('#synthesis .body'), 'judge', `${event.speaker} (${event.model})`);
      break;
    case 'turn-completed': {
      const node = cards.get(event.id);
      if (node) { node.querySelector('.text').textContent = event.text; setState(node, 'done', 'answered'); }
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
    case 'warning':
      section(event.round, event.phase).append(element('p', 'warning',
        `Warning${event.speaker ? ` (${event.speaker})` : ''}: ${event.message}`));
      break;
    case 'choice-made':
      $('#rounds-view').append(element('p', 'note', `The seed chose ${event.what}: ${event.value}`));
      break;
    case 'result-recorded': { // A protocol's own result: a ranking, a scorecard…
      const result = element('details', 'result');
      result.open = true;
      result.append(element('summary', '', event.name), element('pre', '', JSON.stringify(event.value, null, 2)));
      $('#synthesis').append(result);
      break;
    }
    case 'debate-ended': {
      const { kind, headline, synthesis_heading, reason, failures = [] } = event.outcome;
      const lines = [`${headline}. ${reason}`];
      $('#synthesis-title').textContent = synthesis_heading;
      for (const f of failures) lines.push(`Seat ${f.speaker} failed in ${f.phase} round ${f.round} (${f.kind}): ${f.message}`);
      $('#outcome .body').textContent = lines.join('\n');
      $('#outcome').dataset.kind = kind;
      break;
    }
    default: // Events this page does not know yet are still in the log.
  }
}

function onText(id, piece) {
  cards.get(id)?.querySelector('.text').append(piece);
}

function rememberKey() {
  const key = $('#api-key').value;
  const [keep, drop] = $('#remember').checked ? [localStorage, sessionStorage] : [sessionStorage, localStorage];
  drop.removeItem(KEY);
  if (key) keep.setItem(KEY, key); else keep.removeItem(KEY);
}

function setRunning(running) {
  $('#run').disabled = running;
  $('#stop').disabled = !running;
  // Downloads work mid-run too: the journal of a stopped run can be reopened.
  for (const button of document.querySelectorAll('[data-download]')) button.disabled = !council.journal();
}

async function run(submit) {
  submit.preventDefault();
  rememberKey();
  reset();
  let spec;
  try {
    spec = specFromForm({
      models: $('#models').value, judge: $('#judge').value, protocol: $('#protocol').value,
      rounds: $('#rounds').value ? Number($('#rounds').value) : null, options: $('#options').value, question: $('#question').value, max_tokens: Number($('#max-tokens').value),
    });
  } catch (error) {
    $('#status').textContent = `Cannot start: ${error.message}`;
    return;
  }
  try {
    const running = council.run(spec, $('#endpoint').value, $('#api-key').value,
      Number($('#timeout').value) || 120, onEvent, onText);
    setRunning(true);
    const how = await running;
    $('#status').textContent = how === 'stopped' ? 'Stopped. The journal keeps every answered call.' : 'Finished.';
    if (how === 'stopped' && !$('#outcome .body').textContent) $('#outcome .body').textContent = 'Stopped before the end: no outcome.';
  } catch (error) {
    $('#status').textContent = `Error: ${error.message ?? error}`;
  } finally {
    setRunning(false);
  }
}

async function openJournal() {
  const file = $('#open-journal').files[0];
  if (!file) return;
  reset();
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
    journal: [council.journal(), 'debate.ndjson', 'application/x-ndjson'],
  }[what];
  if (text === undefined) return;
  const link = element('a');
  link.href = URL.createObjectURL(new Blob([text], { type }));
  link.download = name;
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 1000);
}

await init();
council = new Council();
// The core says what each protocol takes; the page only shows it.
for (const { name, summary, min_seats, max_seats, options } of protocols()) {
  const option = element('option', '', name);
  option.value = name;
  option.title = summary;
  option.dataset.minSeats = min_seats;
  if (max_seats !== null && max_seats !== undefined) option.dataset.maxSeats = max_seats;
  option.dataset.options = options.map((o) => o.name).join(' ');
  $('#protocol').append(option);
}
$('#protocol').value = 'rotating-challenger';
$('#api-key').value = sessionStorage.getItem(KEY) ?? localStorage.getItem(KEY) ?? '';
$('#remember').checked = localStorage.getItem(KEY) !== null;
$('#remember').addEventListener('change', rememberKey);
$('#debate-form').addEventListener('submit', run);
$('#stop').addEventListener('click', () => council.stop());
$('#open-journal').addEventListener('change', openJournal);
for (const button of document.querySelectorAll('[data-download]')) {
  button.addEventListener('click', () => download(button.dataset.download));
}
$('#run').disabled = false;
$('#status').textContent = 'Ready.';
