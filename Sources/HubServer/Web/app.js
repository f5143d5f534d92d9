// Hearth's page: signs in with a token (the hub answers with an HttpOnly session cookie; nothing is kept in
// storage here) and lists the homes with their rooms and accessories.

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
  $("sign-in").hidden = false;
  $("sign-out").hidden = true;
  $("who").hidden = true;
  $("homes").replaceChildren();
};

const showHome = async (summary) => {
  const { home } = await api("GET", `/v1/homes/${summary.id}`);
  const section = element("section", undefined, { "aria-labelledby": `home-${home.id}` });
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
  $("homes").replaceChildren(...(await Promise.all(me.homes.map(showHome))));
};

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
  try {
    await api("DELETE", "/v1/session");
  } finally {
    showSignIn();
  }
});

showMe().catch(showSignIn);
