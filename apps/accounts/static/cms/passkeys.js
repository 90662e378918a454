// Passkey buttons of the sign-in pages: WebAuthn ceremonies against /_cms/api (Web Authentication §5.1.3, §5.1.4).
// Options come from the server as JSON; the browser's own JSON helpers are used where they exist.
"use strict";
(function () {
  const API = "/_cms/api";

  function csrfToken() {
    const meta = document.querySelector('meta[name="csrf-token"]');
    return meta ? meta.content : "";
  }

  function toBuffer(value) {
    let text = value.replace(/-/g, "+").replace(/_/g, "/");
    while (text.length % 4) text += "=";
    const binary = atob(text);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
    return bytes.buffer;
  }

  function toBase64url(buffer) {
    const bytes = new Uint8Array(buffer);
    let binary = "";
    for (let i = 0; i < bytes.length; i += 1) binary += String.fromCharCode(bytes[i]);
    return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }

  function creationOptions(json) {
    if (typeof PublicKeyCredential.parseCreationOptionsFromJSON === "function") {
      return PublicKeyCredential.parseCreationOptionsFromJSON(json);
    }
    return Object.assign({}, json, {
      challenge: toBuffer(json.challenge),
      user: Object.assign({}, json.user, { id: toBuffer(json.user.id) }),
      excludeCredentials: (json.excludeCredentials || []).map((c) => Object.assign({}, c, { id: toBuffer(c.id) })),
    });
  }

  function requestOptions(json) {
    if (typeof PublicKeyCredential.parseRequestOptionsFromJSON === "function") {
      return PublicKeyCredential.parseRequestOptionsFromJSON(json);
    }
    return Object.assign({}, json, {
      challenge: toBuffer(json.challenge),
      allowCredentials: (json.allowCredentials || []).map((c) => Object.assign({}, c, { id: toBuffer(c.id) })),
    });
  }

  function credentialJSON(credential) {
    if (typeof credential.toJSON === "function") return credential.toJSON();
    const response = {};
    for (const key of ["clientDataJSON", "attestationObject", "authenticatorData", "signature", "userHandle"]) {
      if (credential.response[key]) response[key] = toBase64url(credential.response[key]);
    }
    if (typeof credential.response.getTransports === "function") response.transports = credential.response.getTransports();
    return {
      id: credential.id,
      rawId: toBase64url(credential.rawId),
      response: response,
      type: credential.type,
      clientExtensionResults: credential.getClientExtensionResults(),
      authenticatorAttachment: credential.authenticatorAttachment || null,
    };
  }

  async function post(path, body) {
    const response = await fetch(API + path, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", Accept: "application/json", "X-CSRFToken": csrfToken() },
      body: JSON.stringify(body || {}),
    });
    let payload = null;
    try { payload = await response.json(); } catch (error) { payload = null; }
    if (!response.ok || !payload || !payload.success) {
      throw new Error(payload && payload.error ? payload.error.message : "The request failed (" + response.status + ").");
    }
    return payload.data;
  }

  async function register(optionsPath, optionsBody, verifyPath, verifyBody) {
    const options = await post(optionsPath, optionsBody);
    const credential = await navigator.credentials.create({ publicKey: creationOptions(options) });
    return post(verifyPath, Object.assign(credentialJSON(credential), verifyBody));
  }

  async function signIn() {
    const options = await post("/auth/passkey/options", {});
    const credential = await navigator.credentials.get({ publicKey: requestOptions(options) });
    return post("/auth/passkey/verify", credentialJSON(credential));
  }

  function say(text, isError) {
    const status = document.getElementById("passkey-status");
    if (!status) return;
    status.textContent = text;
    status.classList.toggle("error", Boolean(isError));
  }

  function explain(error) {
    if (error && error.name === "NotAllowedError") return "The passkey request was cancelled or timed out. Try again.";
    if (error && error.name === "InvalidStateError") return "This device already holds a passkey for your account.";
    return (error && error.message) || "Something went wrong. Try again.";
  }

  function value(form, name) {
    const field = form.elements.namedItem(name);
    return field ? field.value.trim() : "";
  }

  const flows = {
    setup(form) {
      return register(
        "/setup/passkey/options",
        { email: value(form, "email"), name: value(form, "name") },
        "/setup/passkey/verify",
        value(form, "passkey_name") ? { name: value(form, "passkey_name") } : {}
      ).then(() => window.location.assign("/_cms/admin/"));
    },
    invite(form) {
      const token = form.dataset.token;
      return register(
        "/auth/invite/accept/options",
        { token: token, name: value(form, "name") },
        "/auth/invite/accept/verify",
        Object.assign({ token: token }, value(form, "passkey_name") ? { name: value(form, "passkey_name") } : {})
      ).then(() => window.location.assign("/_cms/admin/"));
    },
    add(form) {
      return register(
        "/auth/passkey/register/options",
        {},
        "/auth/passkey/register/verify",
        value(form, "passkey_name") ? { name: value(form, "passkey_name") } : {}
      ).then(() => window.location.reload());
    },
  };

  function ready() {
    if (!window.PublicKeyCredential) {
      say("This browser does not support passkeys. Use an email link instead.", true);
      return;
    }
    document.querySelectorAll('[data-passkey="sign-in"]').forEach((button) => {
      button.addEventListener("click", () => {
        say("Waiting for your passkey…");
        signIn()
          .then(() => window.location.assign(button.dataset.next || "/_cms/admin/"))
          .catch((error) => say(explain(error), true));
      });
    });
    document.querySelectorAll("form[data-passkey-form]").forEach((form) => {
      form.addEventListener("submit", (event) => {
        event.preventDefault();
        say("Waiting for your passkey…");
        flows[form.dataset.passkeyForm](form).catch((error) => say(explain(error), true));
      });
    });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", ready);
  else ready();
})();
