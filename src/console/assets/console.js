// The operator console's only script: dialogs, revealing and copying a group's token, copying a webhook secret shown once.
// Served from /console/assets (the CSP allows no inline script), no build step.
(function () {
  'use strict';

  async function tokenOf(code) {
    if (code.dataset.revealed) return code.dataset.revealed;
    const response = await fetch(code.dataset.tokenUrl, { credentials: 'same-origin', cache: 'no-store' });
    if (!response.ok) throw new Error('The token could not be read (' + response.status + ').');
    return response.text();
  }

  function say(text, statusId) {
    const status = document.getElementById(statusId || 'token-status');
    if (status) status.textContent = text;
  }

  async function reveal(button) {
    const code = document.getElementById(button.dataset.reveal);
    if (button.getAttribute('aria-pressed') === 'true') {
      code.textContent = code.dataset.masked;
      button.setAttribute('aria-pressed', 'false');
      button.textContent = 'Reveal';
      return;
    }
    const token = await tokenOf(code);
    code.dataset.revealed = token;
    code.textContent = token;
    button.setAttribute('aria-pressed', 'true');
    button.textContent = 'Hide';
  }

  async function copy(button) {
    const token = await tokenOf(document.getElementById(button.dataset.copy));
    if (!navigator.clipboard) throw new Error('This browser does not allow copying here: reveal the token and copy it by hand.');
    await navigator.clipboard.writeText(token);
    say('Token copied.');
  }

  // Text already on the page (a secret shown once): nothing to fetch.
  async function copyText(button) {
    if (!navigator.clipboard) throw new Error('This browser does not allow copying here: select the text and copy it by hand.');
    await navigator.clipboard.writeText(document.getElementById(button.dataset.copyText).textContent);
    say('Copied.', button.dataset.status);
  }

  // A form marked data-swap-refusal answers a refusal (400) with itself, its errors beside the fields: htmx swaps only 2xx unless told.
  document.addEventListener('htmx:beforeSwap', function (event) {
    const form = event.detail.requestConfig && event.detail.requestConfig.elt;
    if (event.detail.xhr.status === 400 && form instanceof Element && form.hasAttribute('data-swap-refusal')) {
      event.detail.shouldSwap = true;
      event.detail.isError = false;
    }
  });

  document.addEventListener('click', function (event) {
    const button = event.target instanceof Element ? event.target.closest('button') : null;
    if (!button) return;
    if (button.dataset.openDialog) {
      const dialog = document.getElementById(button.dataset.openDialog);
      if (dialog.open) dialog.close();
      dialog.showModal();
      // Into the field to type, else onto Cancel: Enter alone never confirms a destructive step.
      const first = dialog.querySelector('input:not([type=hidden])') || dialog.querySelector('[data-close-dialog]');
      if (first) first.focus();
    } else if (button.hasAttribute('data-close-dialog')) {
      button.closest('dialog').close();
    } else if (button.dataset.reveal) {
      reveal(button).catch(function (error) {
        say(error.message);
      });
    } else if (button.dataset.copyText) {
      copyText(button).catch(function (error) {
        say(error.message, button.dataset.status);
      });
    } else if (button.dataset.copy) {
      copy(button).catch(function (error) {
        say(error.message);
      });
    }
  });
})();
