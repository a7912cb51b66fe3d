// The dashboard's only script: copy buttons, the live job page and live job lists. Every page works
// without it; it only saves reloads. The server renders every HTML fragment this inserts, escaped.
'use strict';

for (const button of document.querySelectorAll('[data-copy]')) {
  button.addEventListener('click', async () => {
    const source = document.getElementById(button.dataset.copy);
    if (!source) return;
    try {
      await navigator.clipboard.writeText(source.textContent.trim());
      button.textContent = 'Copied';
    } catch {
      // Without clipboard access (plain http on another host), select the text for Ctrl+C.
      const range = document.createRange();
      range.selectNodeContents(source);
      const selection = window.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
      button.textContent = 'Press Ctrl+C';
    }
  });
}

// Fetches a fragment of a page. Signed out, fragments answer 401 (never the sign-in page, which
// must not be inserted into this one); the caller then tells the reader to reload.
async function fragment(url) {
  const response = await fetch(url, { headers: { accept: 'text/html' }, redirect: 'error' });
  if (response.status === 401) throw new Error('signed out');
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  return response.text();
}

function notice(text) {
  const main = document.querySelector('main');
  if (!main || document.getElementById('live-notice')) return;
  const box = document.createElement('div');
  box.id = 'live-notice';
  box.className = 'flash warn';
  box.setAttribute('role', 'status');
  box.textContent = text;
  main.prepend(box);
}

// The job page: each event arrives as a rendered list item; a status change refreshes the summary.
const live = document.querySelector('[data-events-url]');
if (live) {
  const list = document.getElementById('activity');
  const stream = new EventSource(live.dataset.eventsUrl);
  let refreshing = Promise.resolve();
  const refresh = () => {
    refreshing = refreshing
      .then(async () => {
        live.innerHTML = await fragment(live.dataset.summaryUrl);
      })
      .catch(() => notice('Live updates stopped (signed out or offline). Reload the page.'));
  };
  stream.addEventListener('message', (message) => {
    const event = JSON.parse(message.data);
    document.getElementById('activity-empty')?.remove();
    list.insertAdjacentHTML('beforeend', event.html);
    if (event.refresh) refresh();
  });
  stream.addEventListener('end', () => {
    stream.close();
    refresh();
  });
  // EventSource reconnects by itself (resuming from the last event id); a refused reconnect
  // (signed out) closes it for good.
  stream.addEventListener('error', () => {
    if (stream.readyState === EventSource.CLOSED) notice('Live updates stopped. Reload the page.');
  });
}

// A job list with active jobs on it reloads its rows now and then, until none is active. A failed
// reload is retried more slowly.
const rows = document.querySelector('[data-rows-url]');
if (rows) {
  const tick = async (delay) => {
    try {
      rows.innerHTML = await fragment(rows.dataset.rowsUrl);
      delay = 3000;
    } catch (error) {
      if (error.message === 'signed out') return notice('Signed out: reload the page to sign in again.');
      delay = Math.min(delay * 2, 60_000);
    }
    if (rows.querySelector('.badge.active')) setTimeout(() => tick(delay), delay);
  };
  if (rows.querySelector('.badge.active')) setTimeout(() => tick(3000), 3000);
}
