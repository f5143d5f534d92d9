// Hearth's page: signs in with a name and password, a token, a sign-in link (#signin=… in the address) or an
// invite code (the hub answers with an HttpOnly session cookie; nothing is kept in
// storage here), shows each home's rooms with a tile per accessory, controls them, and keeps them up to date by
// the event WebSocket (resuming by sequence after a dropped connection or a hub restart). Owners and
// administrators also get the configuration controls; shared users never see them (and the hub refuses them).
//
// This module is the frame: signing in and out, the views, and the event WebSocket; the home view is tiles.js (on
// core.js, the shared helpers); History, People and the configuration screens are modules loaded when first shown.

import { api, element, button, $, notice, homes, characteristicIndex, canConfigure, indexHome } from "./core.js";
import { drawHome, applyValue, refreshTile, redrawDetail } from "./tiles.js";
import { startPairing } from "./pair.js";

let view = "home";

const loadHome = async (homeID) => {
  const answer = await api("GET", `/v1/homes/${homeID}`);
  const entry = { home: answer.home, role: answer.role, tiles: new Map() };
  homes.set(homeID, entry);
  indexHome(entry);
  return entry;
};

const drawHomes = async (homeIDs) => {
  const entries = await Promise.all(homeIDs.map(loadHome));
  for (const id of [...homes.keys()]) if (!homeIDs.includes(id)) homes.delete(id);
  $("homes").replaceChildren(...entries.map(drawHome));
  showConfigTabs();
  pairing.homesChanged();
  redrawDetail();
  if (view !== "home") showView(view);
};

// Redraws a home from the hub (once for a burst of structural changes).
const stale = new Set();
let redrawTimer = 0;
const redraw = (homeID) => {
  stale.add(homeID);
  if (redrawTimer) return;
  redrawTimer = setTimeout(async () => {
    redrawTimer = 0;
    const ids = [...stale];
    stale.clear();
    for (const id of ids) {
      const old = homes.get(id)?.section;
      try {
        const entry = await loadHome(id);
        const fresh = drawHome(entry);
        if (old?.isConnected) old.replaceWith(fresh);
        else $("homes").append(fresh);
        showConfigTabs();
        pairing.homesChanged();
        redrawDetail(id);
        if (view === "history") drawHistory();
        if (view === "people") drawPeople();
        if (screens[view]) drawScreen(view);
      } catch (error) {
        if (error.status === 403 || error.status === 404) {
          homes.delete(id);
          old?.remove();
        }
      }
    }
  }, 50);
};

// History and People, each in its own module, loaded when first shown.
const drawHistory = () =>
  import("./history.js").then((module) => module.draw($("history"))).catch((error) => notice(error.message));
const drawPeople = () =>
  import("./people.js").then((module) => module.draw($("people"))).catch((error) => notice(error.message));

// ---- Adding accessories (pair.js) ----

const pairing = startPairing({ api, element, button, notice, homes, canConfigure, showView });

// ---- Views ----

// The configuration screens, each in its own module, loaded when first opened: view name -> module.
const screens = { scenes: "./scenes.js", automations: "./triggers.js", groups: "./groups.js" };

function drawScreen(name) {
  import(screens[name]).then((module) => module.draw($(name))).catch((error) => notice(error.message));
}

// The tabs of configuration views show only for someone who may configure a home.
function showConfigTabs() {
  const may = [...homes.values()].some(canConfigure);
  for (const tab of document.querySelectorAll("#views [data-config]")) tab.hidden = !may;
}

function showView(name) {
  view = name;
  for (const tab of document.querySelectorAll("#views button")) {
    tab.setAttribute("aria-pressed", tab.dataset.view === name ? "true" : "false");
    $(tab.dataset.view === "home" ? "homes" : tab.dataset.view).hidden = tab.dataset.view !== name;
  }
  pairing.show(name === "add");
  if (name === "history") drawHistory();
  if (name === "people") drawPeople();
  if (screens[name]) drawScreen(name);
}

for (const tab of document.querySelectorAll("#views button")) {
  tab.addEventListener("click", () => showView(tab.dataset.view));
}

$("command").addEventListener("submit", async (event) => {
  event.preventDefault();
  const homeID = [...homes.keys()][0];
  if (!homeID) return;
  $("command-answer").textContent = "…";
  try {
    const answer = await api("POST", `/v1/homes/${homeID}/commands`, { text: $("command-text").value });
    $("command-answer").textContent = answer.message;
  } catch (error) {
    $("command-answer").textContent = error.message;
  }
});

// ---- Signing in and out ----

const showSignIn = () => {
  stopLive();
  $("sign-in").hidden = false;
  for (const id of ["sign-out", "who", "views", "command", "connection", "account"]) $(id).hidden = true;
  $("homes").replaceChildren();
  $("history").replaceChildren();
  $("people").replaceChildren();
  for (const name of Object.keys(screens)) $(name).replaceChildren();
  if ($("detail").open) $("detail").close();
  showView("home");
  homes.clear();
  characteristicIndex.clear();
};

// The event socket opens beside the question of who is signed in, not after it: its hello names the homes, and
// they are drawn without waiting for this answer. Signed out, the hub refuses the socket and the answer shows the
// sign-in form.
const showMe = async () => {
  if (!live) startLive();
  const me = await api("GET", "/v1/me");
  $("sign-in").hidden = true;
  for (const id of ["sign-out", "who", "views", "command", "account"]) $(id).hidden = false;
  $("who").textContent = `Signed in as ${me.user.name}`;
};

// ---- Live: the event WebSocket ----
// Opened with the same cookie (the hub takes it only from this page's own origin). The homes are drawn after the
// socket's hello, so no change falls between the two. A value change updates its tile; any other change redraws
// its home (once for a burst). After a dropped connection or a hub restart the page reconnects and resumes after
// the last sequence it saw in each home; a home whose changes are no longer kept is drawn again.
const sequences = new Map();
let socket = null;
let live = false;
let attempts = 0;
let reconnectTimer = 0;
let handled = Promise.resolve();

const connection = (text) => {
  $("connection").hidden = !text;
  $("connection").textContent = text ?? "";
};

const onMessage = async (message) => {
  if (message.hello) {
    connection(null);
    const list = message.hello.homes;
    const resume = {};
    for (const { homeID } of list) {
      if (sequences.has(homeID)) resume[homeID] = sequences.get(homeID);
    }
    socket?.send(JSON.stringify({ resume }));
    const known = list.every(({ homeID }) => sequences.has(homeID)) && list.length === sequences.size;
    if (!known) {
      sequences.clear();
      for (const { homeID, sequence } of list) sequences.set(homeID, sequence);
      await drawHomes(list.map(({ homeID }) => homeID));
    }
  } else if (message.event) {
    const { homeID, sequence, change } = message.event;
    if (sequence <= (sequences.get(homeID) ?? 0)) return;
    sequences.set(homeID, sequence);
    if (!homes.has(homeID)) {
      await drawHomes([...sequences.keys()]);
      return;
    }
    if (change.type === "characteristicValueChanged" && applyValue(change.characteristicID, change.value)) {
      if (view === "history") drawHistory();
      return;
    }
    if (change.type === "accessoryReachabilityChanged") {
      const accessory = homes.get(homeID).home.accessories?.find((a) => a.id === change.accessoryID);
      if (accessory) {
        accessory.isReachable = change.isReachable;
        refreshTile(homeID, accessory.id);
        return;
      }
    }
    redraw(homeID);
  } else if (message.found || message.removed) {
    pairing.message(message);
  } else if (message.reloadRequired) {
    const { homeID, currentSequence } = message.reloadRequired;
    sequences.set(homeID, currentSequence);
    redraw(homeID);
  }
};

const connect = () => {
  reconnectTimer = 0;
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const opened = new WebSocket(`${scheme}://${location.host}/v1/events`);
  socket = opened;
  opened.addEventListener("open", () => {
    attempts = 0;
  });
  opened.addEventListener("message", (event) => {
    // One message at a time: a home is drawn before the next event is looked at.
    handled = handled.then(() => onMessage(JSON.parse(event.data))).catch(() => {});
  });
  opened.addEventListener("close", () => {
    if (socket !== opened) return;
    socket = null;
    if (live) {
      connection("Reconnecting to the hub…");
      reconnect();
    }
  });
};

// Waits (0.5 s, doubling to 5 s), then asks who is signed in: signed out or revoked shows the sign-in form,
// a hub that does not answer is tried again.
const reconnect = () => {
  if (reconnectTimer || !live) return;
  const delay = Math.min(5000, 500 * 2 ** attempts);
  attempts += 1;
  reconnectTimer = setTimeout(async () => {
    try {
      await api("GET", "/v1/me");
      reconnectTimer = 0;
      if (live && !socket) connect();
    } catch (error) {
      reconnectTimer = 0;
      if (error.status === 401) showSignIn();
      else reconnect();
    }
  }, delay);
};

const startLive = () => {
  stopLive();
  live = true;
  connect();
};

function stopLive() {
  live = false;
  clearTimeout(reconnectTimer);
  reconnectTimer = 0;
  const open = socket;
  socket = null;
  open?.close();
  sequences.clear();
}

window.addEventListener("online", () => {
  if (live && !socket) {
    clearTimeout(reconnectTimer);
    reconnectTimer = 0;
    attempts = 0;
    connect();
  }
});

// Each sign-in form: what it sends to the hub, then the fields it clears.
const signInWith = (id, body, fields) => {
  $(id).addEventListener("submit", async (event) => {
    event.preventDefault();
    $("sign-in-error").textContent = "";
    try {
      await body();
      for (const field of fields) $(field).value = "";
      await showMe();
    } catch (error) {
      $("sign-in-error").textContent = error.message;
    }
  });
};
signInWith("password-sign-in", () => api("POST", "/v1/session", {
  name: $("sign-in-name").value, password: $("sign-in-password").value,
}), ["sign-in-password"]);
signInWith("token-sign-in", () => api("POST", "/v1/session", { token: $("token").value }), ["token"]);
// An invite code makes a new account and joins the home; its token signs in once and is not kept.
signInWith("invite-sign-in", async () => {
  const joined = await api("POST", "/v1/invites/redeem", { code: $("invite-code").value, name: $("invite-name").value });
  await api("POST", "/v1/session", { token: joined.token.token });
}, ["invite-code", "invite-name"]);

$("set-password").addEventListener("submit", async (event) => {
  event.preventDefault();
  $("set-password-answer").textContent = "…";
  const body = { password: $("new-password").value };
  if ($("current-password").value) body.currentPassword = $("current-password").value;
  try {
    await api("PUT", "/v1/account/password", body);
    $("set-password-answer").textContent = "Your password is set.";
    $("current-password").value = "";
    $("new-password").value = "";
  } catch (error) {
    $("set-password-answer").textContent = error.message;
  }
});

$("sign-out").addEventListener("click", async () => {
  stopLive();
  try {
    await api("DELETE", "/v1/session");
  } finally {
    showSignIn();
  }
});

// A sign-in link (`hearth user sign-in-link`) carries its secret in the fragment, which never reaches the hub's
// logs; it is taken out of the address at once, then traded for a session cookie.
const start = async () => {
  const link = new URLSearchParams(location.hash.slice(1)).get("signin");
  if (link) {
    history.replaceState(null, "", location.pathname + location.search);
    try {
      await api("POST", "/v1/session", { link });
    } catch (error) {
      showSignIn();
      $("sign-in-error").textContent = error.message;
      return;
    }
  }
  await showMe();
};
start().catch(showSignIn);

// What the configuration modules (scenes.js, triggers.js, groups.js) use of this one.
export {
  api, element, button, notice, homes, canConfigure, short, T, words, say, label, writable, visibleServices,
  characteristicIndex, fahrenheit,
} from "./core.js";
export { runScene } from "./tiles.js";
export { startLive };
