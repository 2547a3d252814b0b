// The passkey pages' one script: runs the WebAuthn ceremony the server prepared (the form's
// data-options, WebAuthn's JSON form), then posts the browser's answer as JSON in the form's `credential` field.
// No inline code anywhere: the pages allow only this file (script-src 'self').
const form = document.getElementById('passkey-form');
const failed = document.getElementById('passkey-error');

const toBytes = (text) => Uint8Array.from(atob(text.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));
const toText = (buffer) =>
  btoa(String.fromCharCode(...new Uint8Array(buffer)))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
const withIds = (list) => (list ?? []).map((c) => ({ ...c, id: toBytes(c.id) }));

function publicKeyOptions(ceremony, options) {
  const challenge = toBytes(options.challenge);
  if (ceremony === 'create') {
    const user = { ...options.user, id: toBytes(options.user.id) };
    return { ...options, challenge, user, excludeCredentials: withIds(options.excludeCredentials) };
  }
  return { ...options, challenge, allowCredentials: withIds(options.allowCredentials) };
}

function credentialJson(credential) {
  const r = credential.response;
  const response = { clientDataJSON: toText(r.clientDataJSON) };
  if (r.attestationObject) {
    response.attestationObject = toText(r.attestationObject);
    response.transports = r.getTransports ? r.getTransports() : [];
  } else {
    response.authenticatorData = toText(r.authenticatorData);
    response.signature = toText(r.signature);
    if (r.userHandle) response.userHandle = toText(r.userHandle);
  }
  return {
    id: credential.id,
    rawId: toText(credential.rawId),
    type: credential.type,
    response,
    clientExtensionResults: credential.getClientExtensionResults(),
    authenticatorAttachment: credential.authenticatorAttachment ?? undefined,
  };
}

async function run() {
  failed.hidden = true;
  const ceremony = form.dataset.ceremony;
  try {
    const publicKey = publicKeyOptions(ceremony, JSON.parse(form.dataset.options));
    const credential =
      ceremony === 'create'
        ? await navigator.credentials.create({ publicKey })
        : await navigator.credentials.get({ publicKey });
    form.elements.credential.value = JSON.stringify(credentialJson(credential));
    form.submit();
  } catch {
    failed.hidden = false;
  }
}

document.getElementById('passkey-start').addEventListener('click', run);
