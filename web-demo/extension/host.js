// What the side panel keeps and what it may reach; app.js and the Rust host
// loop are the page's own. The key lives in chrome.storage.session (memory,
// gone when the browser stops), or chrome.storage.local when remembered:
// never in sync storage, never in a log. The running debate's journal lives in
// chrome.storage.local, so a closed panel loses no answered call. Endpoints
// other than this machine are reached with a host permission asked for at run
// time, for the origin typed.

const KEY = 'agon.apiKey';
const DEBATE = 'agon.debate';
const CONTEXT = 'agon.context';

export async function loadKey() {
  const [session, local] = await Promise.all([chrome.storage.session.get(KEY), chrome.storage.local.get(KEY)]);
  return { key: session[KEY] ?? local[KEY] ?? '', remember: local[KEY] !== undefined };
}

export async function saveKey(key, remember) {
  const [keep, drop] = remember ? [chrome.storage.local, chrome.storage.session] : [chrome.storage.session, chrome.storage.local];
  await drop.remove(KEY);
  if (key) await keep.set({ [KEY]: key }); else await keep.remove(KEY);
}

/**
 * Ask for the endpoint's origin (every port of its host). Must be called in
 * the click that starts the run, before anything is awaited: Chrome asks the
 * person only inside their gesture. Already granted (this machine is, for the
 * local model): no question is asked.
 */
export function allowEndpoint(endpoint) {
  let url;
  try {
    url = new URL(endpoint);
  } catch {
    return Promise.resolve({ allowed: false, why: `Endpoint: "${endpoint}" is not a URL` });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return Promise.resolve({ allowed: false, why: `Endpoint: ${url.protocol} is not http or https` });
  }
  const origin = `${url.protocol}//${url.hostname}/*`;
  return chrome.permissions.request({ origins: [origin] }).then(
    (granted) => (granted ? { allowed: true } : { allowed: false, why: `agon was not allowed to reach ${url.origin} (the permission was declined)` }),
    (error) => ({ allowed: false, why: `agon cannot ask to reach ${url.origin}: ${error.message}` }),
  );
}

let claimed;

/**
 * One panel runs the kept debate at a time (a panel per window could open on
 * it): the first to ask holds a lock until it closes.
 */
export function claimDebate() {
  claimed ??= new Promise((resolve) => {
    navigator.locks.request(DEBATE, { ifAvailable: true }, (lock) => {
      resolve(lock !== null);
      return lock ? new Promise(() => {}) : undefined; // held while this panel lives
    });
  }).then((got) => {
    if (!got) claimed = undefined; // ask again next time
    return got;
  });
  return claimed;
}

const HISTORY = 'agon.history';

/** Past debates kept in chrome.storage.local: [{ id, title, at, outcome, journal }], newest first. */
export async function loadHistory() {
  const list = (await chrome.storage.local.get(HISTORY))[HISTORY];
  return Array.isArray(list) ? list : [];
}

export async function saveHistory(list) {
  await chrome.storage.local.set({ [HISTORY]: list });
}

export async function saveDebate(record) {
  await chrome.storage.local.set({ [DEBATE]: record });
}

export async function loadDebate() {
  return (await chrome.storage.local.get(DEBATE))[DEBATE] ?? null;
}

/** Selected text sent by the context menu: now if it is waiting, and each time it comes. */
export function onContext(callback) {
  const take = (handover) => {
    if (!handover) return;
    chrome.storage.session.remove(CONTEXT);
    callback(handover);
  };
  chrome.storage.session.get(CONTEXT).then((found) => take(found[CONTEXT]));
  chrome.storage.session.onChanged.addListener((changes) => take(changes[CONTEXT]?.newValue));
}
