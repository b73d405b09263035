// The extension's service worker: it opens the side panel and offers
// "Debate this with agon" on selected text. It runs no debate: the browser
// stops an idle worker after 30 s, so councils run in the side panel page,
// which keeps its journal in chrome.storage.local as it goes.

const MENU = 'agon-debate-selection';

chrome.runtime.onInstalled.addListener(() => {
  chrome.contextMenus.create({ id: MENU, title: 'Debate this with agon', contexts: ['selection'] });
});

// The toolbar button opens the panel.
chrome.sidePanel.setPanelBehavior({ openPanelOnActionClick: true }).catch((error) => console.error(error.message));

/**
 * The selection becomes the debate's context; the panel shows it in its form
 * with a question the person can edit. The panel is opened first, before
 * anything is awaited: only the click's own gesture may open it.
 */
function debateSelection(info, tab) {
  if (info.menuItemId !== MENU || !info.selectionText) return;
  const opening = tab?.windowId === undefined ? Promise.resolve() : chrome.sidePanel.open({ windowId: tab.windowId });
  // Where it came from, without the query or fragment (they may hold tokens).
  let from = '';
  try {
    const url = new URL(tab?.url ?? '');
    from = `${tab.title ? `${tab.title} — ` : ''}${url.origin}${url.pathname}`;
  } catch { /* a page without a URL: the text alone */ }
  const context = from ? `From ${from}:\n\n${info.selectionText}` : info.selectionText;
  const handover = { context, question: 'What is right, what is wrong, and what is missing in this text?' };
  chrome.storage.session.set({ 'agon.context': handover }).catch((error) => console.error(error.message));
  opening.catch((error) => console.error(`agon: the side panel did not open: ${error.message}`));
}

chrome.contextMenus.onClicked.addListener(debateSelection);
