// Gatehouse admin console: the one optional script. It shows copy buttons and asks before a removal;
// without it every page works (removals then have the server's confirmation page).
'use strict';
document.addEventListener('DOMContentLoaded', () => {
  for (const button of document.querySelectorAll('button[data-copy]')) {
    button.hidden = false;
    button.addEventListener('click', async () => {
      const input = document.getElementById(button.dataset.copy);
      await navigator.clipboard.writeText(input.value);
      button.textContent = button.dataset.copied;
    });
  }
  for (const form of document.querySelectorAll('form[data-confirm]')) {
    form.addEventListener('submit', (event) => {
      if (!window.confirm(form.dataset.confirm)) {
        event.preventDefault();
        return;
      }
      const confirmed = document.createElement('input');
      confirmed.type = 'hidden';
      confirmed.name = 'confirm';
      confirmed.value = 'yes';
      form.append(confirmed);
    });
  }
});
