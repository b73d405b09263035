// What the page keeps and what it may reach, for app.js. The browser
// extension ships its own host.js with the same exports (chrome.storage,
// run-time host permissions, the selection from the context menu); app.js
// and the Rust host loop are the same in both.

const KEY = 'agon.apiKey';

/** The API key kept so far, and whether it is remembered across restarts. */
export async function loadKey() {
  return { key: sessionStorage.getItem(KEY) ?? localStorage.getItem(KEY) ?? '', remember: localStorage.getItem(KEY) !== null };
}

/** Keep the key for this tab (sessionStorage), or in localStorage when remembered; never both. */
export async function saveKey(key, remember) {
  const [keep, drop] = remember ? [localStorage, sessionStorage] : [sessionStorage, localStorage];
  drop.removeItem(KEY);
  if (key) keep.setItem(KEY, key); else keep.removeItem(KEY);
}

/**
 * May the page call `endpoint`? A page needs nothing from the browser: the
 * endpoint's own CORS answer decides. Called first thing in the click that
 * starts a run, where an extension still holds the person's gesture.
 */
export function allowEndpoint() {
  return Promise.resolve({ allowed: true });
}

/** Take the one running debate for this page; a page may run one per tab. */
export async function claimDebate() {
  return true;
}

/** The page keeps no debate across reloads: the journal download does. */
export async function saveDebate() {}

export async function loadDebate() {
  return null;
}

const HISTORY = 'agon.history';

/** Past debates kept in this browser (localStorage): [{ id, title, at, outcome, journal }], newest first. */
export async function loadHistory() {
  try {
    const list = JSON.parse(localStorage.getItem(HISTORY) ?? '[]');
    return Array.isArray(list) ? list : [];
  } catch {
    return []; // a list this page cannot read is no list, not a broken page
  }
}

/** Keep the list; throws when the browser's storage is full (the caller drops the oldest). */
export async function saveHistory(list) {
  localStorage.setItem(HISTORY, JSON.stringify(list));
}

/** Material handed to the page from elsewhere (the extension's context menu); none here. */
export function onContext() {}
