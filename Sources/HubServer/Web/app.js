// Hearth's page: signs in with a token (the hub answers with an HttpOnly session cookie; nothing is kept in
// storage here) and lists the homes with their rooms and accessories, kept up to date by the event WebSocket.

const api = async (method, path, body) => {
  const headers = { "X-Hearth-Request": "1" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(path, {
    method,
    headers,
    credentials: "same-origin",
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  const json = text ? JSON.parse(text) : null;
  if (!response.ok) {
    const error = new Error(json?.error?.message ?? `${response.status}`);
    error.status = response.status;
    throw error;
  }
  return json;
};

const element = (name, text, attributes = {}) => {
  const node = document.createElement(name);
  if (text !== undefined) node.textContent = text;
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  return node;
};

const $ = (id) => document.getElementById(id);

const showSignIn = () => {
  stopLive();
  $("sign-in").hidden = false;
  $("sign-out").hidden = true;
  $("who").hidden = true;
  $("homes").replaceChildren();
};

const showHome = async (summary) => {
  const { home } = await api("GET", `/v1/homes/${summary.id}`);
  const section = element("section", undefined, { "aria-labelledby": `home-${home.id}` });
  sections.set(home.id, section);
  section.append(element("h2", home.name, { id: `home-${home.id}` }));
  const rooms = [home.roomForEntireHome, ...(home.rooms ?? [])].filter(Boolean);
  for (const room of rooms) {
    const accessories = (home.accessories ?? []).filter((accessory) => accessory.roomID === room.id);
    if (accessories.length === 0 && room === home.roomForEntireHome) continue;
    section.append(element("h3", room.name));
    const list = element("ul");
    for (const accessory of accessories) {
      const item = element("li", accessory.name);
      if (accessory.isReachable === false) {
        item.className = "unreachable";
        item.append(" (unreachable)");
      }
      list.append(item);
    }
    section.append(list);
  }
  return section;
};

const showMe = async () => {
  const me = await api("GET", "/v1/me");
  $("sign-in").hidden = true;
  $("sign-out").hidden = false;
  $("who").hidden = false;
  $("who").textContent = `Signed in as ${me.user.name}`;
  startLive();
};

// Live: the event WebSocket, opened with the same cookie (the hub takes it only from this page's own origin).
// The homes are drawn after the socket's hello, so no change falls between the two; each event redraws its home
// (once for a burst of events). After a dropped connection or a hub restart the page reconnects and resumes after
// the last sequence it saw in each home; a home whose changes are no longer kept is drawn again.
const sequences = new Map();
const sections = new Map();
const stale = new Set();
let socket = null;
let live = false;
let attempts = 0;
let reconnectTimer = 0;
let redrawTimer = 0;
let handled = Promise.resolve();

const redraw = (homeID) => {
  stale.add(homeID);
  if (redrawTimer) return;
  redrawTimer = setTimeout(async () => {
    redrawTimer = 0;
    const ids = [...stale];
    stale.clear();
    for (const id of ids) {
      const old = sections.get(id);
      if (!old) continue;
      try {
        old.replaceWith(await showHome({ id }));
      } catch (error) {
        if (error.status === 403 || error.status === 404) {
          sections.delete(id);
          old.remove();
        }
      }
    }
  }, 50);
};

const drawHomes = async (homeIDs) => {
  sections.clear();
  $("homes").replaceChildren(...(await Promise.all(homeIDs.map((id) => showHome({ id })))));
};

const onMessage = async (message) => {
  if (message.hello) {
    const homes = message.hello.homes;
    const resume = {};
    for (const { homeID } of homes) {
      if (sequences.has(homeID)) resume[homeID] = sequences.get(homeID);
    }
    socket?.send(JSON.stringify({ resume }));
    const known = homes.every(({ homeID }) => sequences.has(homeID)) && homes.length === sequences.size;
    if (!known) {
      sequences.clear();
      for (const { homeID, sequence } of homes) sequences.set(homeID, sequence);
      await drawHomes(homes.map(({ homeID }) => homeID));
    }
  } else if (message.event) {
    const { homeID, sequence } = message.event;
    if (sequence <= (sequences.get(homeID) ?? 0)) return;
    sequences.set(homeID, sequence);
    if (sections.has(homeID)) redraw(homeID);
    else await drawHomes([...sequences.keys()]);
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
    if (live) reconnect();
  });
};

// Waits (0.5 s, doubling to 10 s), then asks who is signed in: signed out or revoked shows the sign-in form,
// a hub that does not answer is tried again.
const reconnect = () => {
  if (reconnectTimer || !live) return;
  const delay = Math.min(10000, 500 * 2 ** attempts);
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
  sections.clear();
}

window.addEventListener("online", () => {
  if (live && !socket) {
    clearTimeout(reconnectTimer);
    reconnectTimer = 0;
    attempts = 0;
    connect();
  }
});

$("sign-in").addEventListener("submit", async (event) => {
  event.preventDefault();
  $("sign-in-error").textContent = "";
  try {
    await api("POST", "/v1/session", { token: $("token").value });
    $("token").value = "";
    await showMe();
  } catch (error) {
    $("sign-in-error").textContent = error.message;
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

showMe().catch(showSignIn);
