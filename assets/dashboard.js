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

// The job page: each event arrives as a rendered list item; a status change refreshes the summary.
const live = document.querySelector('[data-events-url]');
if (live) {
  const list = document.getElementById('activity');
  const empty = document.getElementById('activity-empty');
  const stream = new EventSource(live.dataset.eventsUrl);
  let refreshing = Promise.resolve();
  const refresh = () => {
    refreshing = refreshing.then(async () => {
      const response = await fetch(live.dataset.summaryUrl, { headers: { accept: 'text/html' } });
      if (response.ok) live.innerHTML = await response.text();
    });
  };
  stream.addEventListener('message', (message) => {
    const event = JSON.parse(message.data);
    if (empty) empty.remove();
    list.insertAdjacentHTML('beforeend', event.html);
    if (event.refresh) refresh();
  });
  stream.addEventListener('end', () => {
    stream.close();
    refresh();
  });
}

// A job list with active jobs on it reloads its rows now and then, until none is active.
const rows = document.querySelector('[data-rows-url]');
if (rows) {
  const tick = async () => {
    const response = await fetch(rows.dataset.rowsUrl, { headers: { accept: 'text/html' } });
    if (response.ok) rows.innerHTML = await response.text();
    if (rows.querySelector('.badge.active')) setTimeout(tick, 3000);
  };
  if (rows.querySelector('.badge.active')) setTimeout(tick, 3000);
}
