// Hearth's page: signs in with a name and password, a token, a sign-in link (#signin=… in the address) or an
// invite code (the hub answers with an HttpOnly session cookie; nothing is kept in
// storage here), shows each home's rooms with a tile per accessory, controls them, and keeps them up to date by
// the event WebSocket (resuming by sequence after a dropped connection or a hub restart). Owners and
// administrators also get the configuration controls; shared users never see them (and the hub refuses them).

import { startPairing } from "./pair.js";

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
    const error = new Error(json?.error?.message ?? `The hub answered ${response.status}.`);
    error.status = response.status;
    throw error;
  }
  return json;
};

const element = (name, text, attributes = {}) => {
  const node = document.createElement(name);
  if (text !== undefined && text !== null) node.textContent = text;
  for (const [key, value] of Object.entries(attributes)) {
    if (value !== undefined && value !== false) node.setAttribute(key, value === true ? "" : value);
  }
  return node;
};

const button = (text, onClick, attributes = {}) => {
  const node = element("button", text, { type: "button", ...attributes });
  node.addEventListener("click", onClick);
  return node;
};

const $ = (id) => document.getElementById(id);

const notice = (text) => {
  $("notice").textContent = text;
};

// ---- HAP types, values and words ----

// The short form of a HAP type ("25" for "00000025-0000-1000-8000-0026BB765291").
const short = (type) => {
  const upper = String(type).toUpperCase();
  if (upper.endsWith("-0000-1000-8000-0026BB765291")) return upper.slice(0, 8).replace(/^0+/, "") || "0";
  return upper;
};

const T = {
  on: "25", brightness: "8", colorTemperature: "CE", currentTemperature: "11", targetTemperature: "35",
  currentMode: "F", targetMode: "33", lockCurrent: "1D", lockTarget: "1E", doorCurrent: "E", doorTarget: "32",
  currentPosition: "6D", targetPosition: "7C", motion: "22", contact: "6A", lowBattery: "79", batteryLevel: "68",
  humidity: "10", active: "B0", lightLevel: "6B", obstruction: "24", leak: "70", smoke: "76", occupancy: "71",
};
const S = {
  lightbulb: "43", switch: "49", outlet: "47", fan: "40", fan2: "B7", thermostat: "4A", lock: "45", garage: "41",
  windowCovering: "8C", door: "81", window: "8B", motion: "85", contact: "80", temperature: "8A", humidity: "82",
  battery: "96", light: "84", leak: "83", smoke: "87", occupancy: "86", info: "3E", protocol: "A2",
};
const hiddenServiceTypes = new Set([S.info, S.protocol]);

const words = {
  [T.lockCurrent]: ["Unlocked", "Locked", "Jammed", "Unknown"],
  [T.lockTarget]: ["Unlocked", "Locked"],
  [T.doorCurrent]: ["Open", "Closed", "Opening", "Closing", "Stopped"],
  [T.doorTarget]: ["Open", "Closed"],
  [T.currentMode]: ["Off", "Heating", "Cooling"],
  [T.targetMode]: ["Off", "Heat", "Cool", "Auto"],
  [T.contact]: ["Closed", "Open"],
  "72": ["Closing", "Opening", "Stopped"],
  [T.lowBattery]: ["Normal", "Low"],
  "36": ["Celsius", "Fahrenheit"],
  "73": ["Single press", "Double press", "Long press"],
  "8F": ["Not charging", "Charging", "Not chargeable"],
  [T.active]: ["Inactive", "Active"],
  [T.leak]: ["No leak", "Leak"],
  [T.smoke]: ["No smoke", "Smoke"],
  [T.occupancy]: ["Not occupied", "Occupied"],
};

const units = { celsius: " °C", percentage: "%", arcdegrees: "°", lux: " lx", seconds: " s" };

// Whether a home says temperatures in degrees Fahrenheit (values stay in Celsius in the API).
const fahrenheit = (homeID) => homes.get(homeID)?.home.temperatureUnit === "fahrenheit";

const round = (value, step) => {
  if (typeof value !== "number") return value;
  const digits = step && step < 1 ? Math.min(2, Math.ceil(-Math.log10(step))) : 0;
  return Number(value.toFixed(digits));
};

// A characteristic's value as people say it, with its unit.
const say = (characteristic) => {
  const value = characteristic.value;
  if (value === undefined || value === null) return "—";
  const type = short(characteristic.type);
  const named = words[type]?.[value];
  if (named) return named;
  if (typeof value === "boolean") {
    if (type === T.on) return value ? "On" : "Off";
    if (type === T.motion) return value ? "Motion" : "No motion";
    return value ? "Yes" : "No";
  }
  const unit = units[characteristic.metadata?.unit] ?? "";
  if (typeof value === "number" && characteristic.metadata?.unit === "celsius"
      && fahrenheit(characteristicIndex.get(characteristic.id)?.homeID)) {
    return `${round(value * 9 / 5 + 32, 0.1)} °F`;
  }
  if (typeof value === "number") return `${round(value, characteristic.metadata?.minStep)}${unit}`;
  return String(value);
};

const label = (characteristic) => characteristic.metadata?.description ?? `Characteristic ${short(characteristic.type)}`;
const writable = (characteristic) => characteristic.permissions?.includes("pw");
const isHiddenCharacteristic = (characteristic) => characteristic.permissions?.includes("hd");
const visibleServices = (accessory) =>
  (accessory.services ?? []).filter((service) => !service.isHidden && !hiddenServiceTypes.has(short(service.type)));

const find = (accessory, type, serviceTypes) => {
  for (const service of accessory.services ?? []) {
    if (serviceTypes && !serviceTypes.includes(short(service.type))) continue;
    for (const characteristic of service.characteristics ?? []) {
      if (short(characteristic.type) === type) return characteristic;
    }
  }
  return undefined;
};

// The service a tile is about: the primary one, else the first one people see.
const mainService = (accessory) => {
  const services = visibleServices(accessory);
  return services.find((service) => service.isPrimary) ?? services[0];
};

// ---- The homes, kept in memory and changed by events ----

const homes = new Map(); // homeID -> { home, role, section, tiles: Map(accessoryID -> tile) }
const characteristicIndex = new Map(); // characteristicID -> { homeID, accessory, characteristic }
let view = "home";
let detail = null; // { homeID, accessoryID } while the detail view is open

const canConfigure = (entry) => entry.role === "owner" || entry.role === "administrator";

const indexHome = (entry) => {
  for (const [id, indexed] of characteristicIndex) if (indexed.homeID === entry.home.id) characteristicIndex.delete(id);
  for (const accessory of entry.home.accessories ?? []) {
    for (const service of accessory.services ?? []) {
      for (const characteristic of service.characteristics ?? []) {
        characteristicIndex.set(characteristic.id, { homeID: entry.home.id, accessory, characteristic });
      }
    }
  }
};

const write = async (homeID, characteristic, value) => {
  try {
    const answer = await api("PUT", `/v1/homes/${homeID}/characteristics/${characteristic.id}`, { value });
    const written = answer?.characteristic?.value ?? value;
    applyValue(characteristic.id, written);
  } catch (error) {
    notice(`${label(characteristic)}: ${error.message}`);
    refreshTile(homeID, characteristicIndex.get(characteristic.id)?.accessory?.id);
  }
};

// ---- Tiles ----

const summary = (accessory) => {
  const parts = [];
  const service = mainService(accessory);
  const type = service ? short(service.type) : "";
  const get = (characteristicType, serviceTypes) => find(accessory, characteristicType, serviceTypes);
  const on = get(T.on);
  const active = get(T.active);
  if (type === S.thermostat) {
    const current = get(T.currentTemperature, [S.thermostat]);
    const target = get(T.targetTemperature, [S.thermostat]);
    const mode = get(T.targetMode, [S.thermostat]);
    if (current) parts.push(say(current));
    if (target) parts.push(`set to ${say(target)}`);
    if (mode) parts.push(say(mode));
  } else if (type === S.lock) {
    const current = get(T.lockCurrent) ?? get(T.lockTarget);
    if (current) parts.push(say(current));
  } else if (type === S.garage) {
    const current = get(T.doorCurrent) ?? get(T.doorTarget);
    if (current) parts.push(say(current));
    if (get(T.obstruction)?.value === true) parts.push("Obstructed");
  } else if ([S.windowCovering, S.door, S.window].includes(type)) {
    const position = get(T.currentPosition) ?? get(T.targetPosition);
    if (position) parts.push(position.value > 0 ? `Open ${position.value}%` : "Closed");
  } else if (on) {
    parts.push(on.value ? "On" : "Off");
    const brightness = get(T.brightness);
    if (on.value && brightness) parts.push(say(brightness));
  } else if (active) {
    parts.push(active.value ? "On" : "Off");
  }
  const motion = get(T.motion);
  if (motion) parts.push(motion.value ? "Motion" : "No motion");
  const contact = get(T.contact);
  if (contact) parts.push(say(contact));
  for (const sensor of [T.leak, T.smoke, T.occupancy]) {
    const characteristic = get(sensor);
    if (characteristic) parts.push(say(characteristic));
  }
  if (type !== S.thermostat) {
    const temperature = get(T.currentTemperature);
    if (temperature) parts.push(say(temperature));
  }
  const humidity = get(T.humidity, [S.humidity]);
  if (humidity) parts.push(`${say(humidity)} humidity`);
  const light = get(T.lightLevel);
  if (light) parts.push(say(light));
  return parts.join(", ") || "—";
};

const confirmLock = (accessory, locking) =>
  window.confirm(`${locking ? "Lock" : "Unlock"} ${accessory.name}?`);

// The tile's main control: a toggle, a slider, the thermostat's steps, or lock and unlock.
const tileControls = (entry, accessory) => {
  const homeID = entry.home.id;
  const controls = element("div", undefined, { class: "controls" });
  const disabled = accessory.isReachable === false;
  const service = mainService(accessory);
  const type = service ? short(service.type) : "";
  const get = (characteristicType) => find(accessory, characteristicType);
  const on = get(T.on) ?? get(T.active);
  if (type === S.thermostat) {
    const target = get(T.targetTemperature);
    if (target && writable(target)) {
      const step = (delta) => () => {
        const meta = target.metadata ?? {};
        const next = Math.min(meta.maxValue ?? 38, Math.max(meta.minValue ?? 10, (target.value ?? 20) + delta));
        write(homeID, target, round(next, 0.1));
      };
      controls.append(
        button("−", step(-0.5), { class: "step", "aria-label": `Lower ${accessory.name} by half a degree`, disabled }),
        element("span", say(target), { class: "target", "aria-hidden": "true" }),
        button("+", step(0.5), { class: "step", "aria-label": `Raise ${accessory.name} by half a degree`, disabled })
      );
    }
  } else if (type === S.lock) {
    const target = get(T.lockTarget);
    if (target && writable(target)) {
      const locked = (get(T.lockCurrent)?.value ?? target.value) === 1;
      controls.append(
        button(locked ? "Unlock" : "Lock", () => {
          if (confirmLock(accessory, !locked)) write(homeID, target, locked ? 0 : 1);
        }, { class: "toggle", disabled })
      );
    }
  } else if (type === S.garage) {
    const target = get(T.doorTarget);
    if (target && writable(target)) {
      const closed = target.value === 1;
      controls.append(button(closed ? "Open" : "Close", () => write(homeID, target, closed ? 0 : 1), {
        class: "toggle", disabled,
      }));
    }
  } else if ([S.windowCovering, S.door, S.window].includes(type)) {
    const target = get(T.targetPosition);
    if (target && writable(target)) controls.append(slider(homeID, accessory, target, "Position"));
  } else if (on && writable(on)) {
    const isOn = on.value === true || on.value === 1;
    controls.append(
      button(isOn ? "Turn off" : "Turn on", () => write(homeID, on, typeof on.value === "number" ? (isOn ? 0 : 1) : !isOn), {
        class: "toggle", "aria-pressed": isOn ? "true" : "false", disabled,
      })
    );
    const brightness = get(T.brightness);
    if (brightness && writable(brightness)) controls.append(slider(homeID, accessory, brightness, "Brightness"));
    const temperature = get(T.colorTemperature);
    if (temperature && writable(temperature)) controls.append(slider(homeID, accessory, temperature, "Colour temperature"));
  }
  return controls;
};

// A range input that writes once, when the person lets go.
const slider = (homeID, accessory, characteristic, name) => {
  const meta = characteristic.metadata ?? {};
  const input = element("input", undefined, {
    type: "range",
    min: meta.minValue ?? 0,
    max: meta.maxValue ?? 100,
    step: meta.minStep ?? 1,
    value: characteristic.value ?? meta.minValue ?? 0,
    "aria-label": `${name} of ${accessory.name}`,
    "data-characteristic": short(characteristic.type),
    disabled: accessory.isReachable === false,
  });
  input.addEventListener("change", () => write(homeID, characteristic, Number(input.value)));
  return input;
};

const tile = (entry, accessory) => {
  const node = element("article", undefined, {
    class: "tile",
    "data-accessory-id": accessory.id,
    "data-name": accessory.name,
    "aria-label": accessory.name,
  });
  const low = (accessory.services ?? []).some((service) =>
    (service.characteristics ?? []).some((c) => short(c.type) === T.lowBattery && c.value === 1));
  const unreachable = accessory.isReachable === false;
  if (unreachable) node.classList.add("unreachable");
  const on = find(accessory, T.on) ?? find(accessory, T.active);
  if (on && (on.value === true || on.value === 1)) node.classList.add("on");
  const name = button(accessory.name, () => openDetail(entry.home.id, accessory.id), {
    class: "name", "aria-haspopup": "dialog",
  });
  node.append(name, element("p", summary(accessory), { class: "state" }));
  const badges = element("p", undefined, { class: "badges" });
  if (unreachable) badges.append(element("span", "Unreachable", { class: "badge warn" }));
  if (low) badges.append(element("span", "Battery low", { class: "badge warn" }));
  if (badges.childElementCount) node.append(badges);
  node.append(tileControls(entry, accessory));
  return node;
};

function refreshTile(homeID, accessoryID) {
  const entry = homes.get(homeID);
  const accessory = entry?.home.accessories?.find((candidate) => candidate.id === accessoryID);
  const old = entry?.tiles.get(accessoryID);
  if (!accessory || !old) return;
  const focused = focusables(old).indexOf(document.activeElement);
  const fresh = tile(entry, accessory);
  old.replaceWith(fresh);
  entry.tiles.set(accessoryID, fresh);
  if (focused >= 0) focusables(fresh)[focused]?.focus();
  if (detail?.homeID === homeID && detail.accessoryID === accessoryID) drawDetail();
}

// The controls of a part of the page, in order, so that focus stays on the same one when the part is redrawn.
function focusables(node) {
  return [...node.querySelectorAll("button, input, select")];
}

function applyValue(characteristicID, value) {
  const indexed = characteristicIndex.get(characteristicID);
  if (!indexed) return false;
  indexed.characteristic.value = value;
  refreshTile(indexed.homeID, indexed.accessory.id);
  return true;
}

// ---- The home view ----

const drawHome = (entry) => {
  const { home } = entry;
  const section = element("section", undefined, { class: "home", "aria-labelledby": `home-${home.id}` });
  section.append(element("h2", home.name, { id: `home-${home.id}` }));
  entry.tiles = new Map();
  const scenes = home.actionSets ?? [];
  if (scenes.length) {
    const bar = element("div", undefined, { class: "scenes", role: "group", "aria-label": "Scenes" });
    for (const scene of scenes) bar.append(button(scene.name, () => runScene(home.id, scene), { class: "scene" }));
    section.append(bar);
  }
  const zonesOf = (roomID) => (home.zones ?? []).filter((zone) => zone.roomIDs?.includes(roomID)).map((z) => z.name);
  const rooms = [...(home.rooms ?? []), home.roomForEntireHome].filter(Boolean);
  for (const room of rooms) {
    const accessories = (home.accessories ?? []).filter((accessory) => accessory.roomID === room.id);
    if (accessories.length === 0 && room === home.roomForEntireHome) continue;
    const roomSection = element("section", undefined, { class: "room", "data-room-id": room.id });
    const heading = element("div", undefined, { class: "room-heading" });
    heading.append(element("h3", room.name, { id: `room-${room.id}` }));
    roomSection.setAttribute("aria-labelledby", `room-${room.id}`);
    const zones = zonesOf(room.id);
    if (zones.length) heading.append(element("span", zones.join(", "), { class: "zone" }));
    if (canConfigure(entry) && room !== home.roomForEntireHome) {
      heading.append(button("Rename", () => renameRoom(home.id, room), {
        class: "config rename-room", "aria-label": `Rename ${room.name}`,
      }));
    }
    roomSection.append(heading);
    const grid = element("div", undefined, { class: "tiles" });
    for (const accessory of accessories) {
      const node = tile(entry, accessory);
      entry.tiles.set(accessory.id, node);
      grid.append(node);
    }
    if (!accessories.length) grid.append(element("p", "No accessories here yet.", { class: "empty" }));
    roomSection.append(grid);
    section.append(roomSection);
  }
  if (canConfigure(entry)) {
    const form = element("form", undefined, { class: "config new-room", "aria-label": "Add a room" });
    const input = element("input", undefined, {
      name: "name", required: true, maxlength: "64", "aria-label": "New room's name", placeholder: "New room",
    });
    form.append(input, element("button", "Add room", { type: "submit" }));
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      try {
        await api("POST", `/v1/homes/${home.id}/rooms`, { name: input.value });
        input.value = "";
        notice("");
      } catch (error) {
        notice(error.message);
      }
    });
    section.append(form);
  }
  entry.section = section;
  return section;
};

const renameRoom = async (homeID, room) => {
  const name = window.prompt(`New name for ${room.name}`, room.name);
  if (!name || name === room.name) return;
  try {
    await api("PATCH", `/v1/homes/${homeID}/rooms/${room.id}`, { name });
  } catch (error) {
    notice(error.message);
  }
};

const runScene = async (homeID, scene) => {
  notice("");
  try {
    const answer = await api("POST", `/v1/homes/${homeID}/actionSets/${scene.id}/run`);
    const failed = (answer?.results ?? []).filter((result) => result.error);
    for (const result of answer?.results ?? []) {
      if (!result.error && result.value !== undefined) applyValue(result.characteristicID, result.value);
    }
    if (failed.length) {
      notice(`${scene.name}: ${failed.map((result) => {
        const indexed = characteristicIndex.get(result.characteristicID);
        const what = indexed ? `${indexed.accessory.name} ${label(indexed.characteristic)}` : "a write";
        return `${what} failed (${result.error.message})`;
      }).join("; ")}`);
    } else {
      notice(`${scene.name} ran.`);
    }
  } catch (error) {
    notice(`${scene.name}: ${error.message}`);
  }
};

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
  if (detail) drawDetail();
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
        if (detail?.homeID === id) drawDetail();
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

// ---- The detail view ----

const openDetail = (homeID, accessoryID) => {
  detail = { homeID, accessoryID };
  drawDetail();
  const dialog = $("detail");
  if (!dialog.open) dialog.showModal();
};

$("detail").addEventListener("close", () => {
  detail = null;
  $("detail-body").replaceChildren();
});

const characteristicControl = (homeID, accessory, characteristic) => {
  const meta = characteristic.metadata ?? {};
  const name = `${label(characteristic)} of ${accessory.name}`;
  const disabled = accessory.isReachable === false;
  const type = short(characteristic.type);
  if (characteristic.format === "bool") {
    const input = element("input", undefined, { type: "checkbox", "aria-label": name, disabled });
    input.checked = characteristic.value === true;
    input.addEventListener("change", () => write(homeID, characteristic, input.checked));
    return input;
  }
  const values = meta.validValues ?? (words[type] ? words[type].map((_, index) => index) : null);
  if (values && ["uint8", "uint16", "uint32", "int"].includes(characteristic.format)) {
    const select = element("select", undefined, { "aria-label": name, disabled });
    for (const value of values) {
      const option = element("option", words[type]?.[value] ?? String(value), { value: String(value) });
      option.selected = value === characteristic.value;
      select.append(option);
    }
    select.addEventListener("change", () => {
      const value = Number(select.value);
      if ((type === T.lockTarget) && !confirmLock(accessory, value === 1)) {
        select.value = String(characteristic.value);
        return;
      }
      write(homeID, characteristic, value);
    });
    return select;
  }
  if (["uint8", "uint16", "uint32", "uint64", "int", "float"].includes(characteristic.format)) {
    const input = element("input", undefined, {
      type: meta.minValue !== undefined && meta.maxValue !== undefined && meta.maxValue - meta.minValue <= 1000 ? "range" : "number",
      min: meta.minValue, max: meta.maxValue, step: meta.minStep ?? (characteristic.format === "float" ? "any" : 1),
      value: characteristic.value ?? meta.minValue ?? 0, "aria-label": name, disabled,
    });
    input.addEventListener("change", () => write(homeID, characteristic, Number(input.value)));
    return input;
  }
  if (characteristic.format === "string") {
    const input = element("input", undefined, { type: "text", value: characteristic.value ?? "", "aria-label": name, disabled });
    input.addEventListener("change", () => write(homeID, characteristic, input.value));
    return input;
  }
  return null;
};

function drawDetail() {
  const entry = homes.get(detail?.homeID);
  const accessory = entry?.home.accessories?.find((candidate) => candidate.id === detail.accessoryID);
  if (!accessory) {
    if ($("detail").open) $("detail").close();
    return;
  }
  const homeID = entry.home.id;
  $("detail-title").textContent = accessory.name;
  const body = [];
  const about = [accessory.manufacturer, accessory.model].filter(Boolean).join(" ");
  const room = [...(entry.home.rooms ?? []), entry.home.roomForEntireHome].find((r) => r?.id === accessory.roomID);
  body.push(element("p", [room?.name, about, accessory.isReachable === false ? "Unreachable" : null]
    .filter(Boolean).join(" · "), { class: "about" }));
  if (canConfigure(entry)) {
    const form = element("form", undefined, { class: "config accessory-config", "aria-label": "Name and room" });
    const name = element("input", undefined, {
      name: "name", value: accessory.name, required: true, maxlength: "64", "aria-label": "Accessory name",
    });
    const select = element("select", undefined, { name: "room", class: "move-room", "aria-label": "Room" });
    for (const candidate of [entry.home.roomForEntireHome, ...(entry.home.rooms ?? [])].filter(Boolean)) {
      const option = element("option", candidate.name, { value: candidate.id });
      option.selected = candidate.id === accessory.roomID;
      select.append(option);
    }
    form.append(name, select, element("button", "Save", { type: "submit" }));
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const change = {};
      if (name.value !== accessory.name) change.name = name.value;
      if (select.value !== accessory.roomID) change.roomID = select.value;
      if (!Object.keys(change).length) return;
      try {
        await api("PATCH", `/v1/homes/${homeID}/accessories/${accessory.id}`, change);
        notice("");
      } catch (error) {
        notice(error.message);
      }
    });
    body.push(form);
  }
  for (const service of visibleServices(accessory)) {
    const group = element("section", undefined, { class: "service" });
    group.append(element("h3", service.name ?? "Service"));
    const list = element("dl");
    for (const characteristic of service.characteristics ?? []) {
      if (isHiddenCharacteristic(characteristic)) continue;
      if (!characteristic.permissions?.includes("pr") && !writable(characteristic)) continue;
      const row = element("div", undefined, { class: "characteristic", "data-type": short(characteristic.type) });
      row.append(element("dt", label(characteristic)));
      const value = element("dd");
      if (characteristic.permissions?.includes("pr")) value.append(element("span", say(characteristic), { class: "value" }));
      if (writable(characteristic)) {
        const control = characteristicControl(homeID, accessory, characteristic);
        if (control) value.append(control);
      } else {
        value.append(element("span", " (read-only)", { class: "muted" }));
      }
      row.append(value);
      list.append(row);
    }
    group.append(list);
    body.push(group);
  }
  const focused = focusables($("detail-body")).indexOf(document.activeElement);
  $("detail-body").replaceChildren(...body);
  if (focused >= 0) focusables($("detail-body"))[focused]?.focus();
}

// ---- History ----

const describe = (home, change) => {
  const accessory = (id) => home.accessories?.find((a) => a.id === id)?.name ?? "an accessory";
  const room = (id) => [...(home.rooms ?? []), home.roomForEntireHome].find((r) => r?.id === id)?.name ?? "a room";
  switch (change.type) {
    case "characteristicValueChanged": {
      const indexed = characteristicIndex.get(change.characteristicID);
      if (indexed && short(indexed.characteristic.type) === T.on) {
        return `${accessory(change.accessoryID)} turned ${change.value ? "on" : "off"}`;
      }
      const what = indexed ? label(indexed.characteristic) : "a value";
      const said = indexed ? say({ ...indexed.characteristic, value: change.value }) : String(change.value);
      return `${accessory(change.accessoryID)}: ${what} became ${said}`;
    }
    case "accessoryReachabilityChanged":
      return `${accessory(change.accessoryID)} became ${change.isReachable ? "reachable" : "unreachable"}`;
    case "accessoryMovedToRoom":
      return `${accessory(change.accessoryID)} moved to ${room(change.toRoomID)}`;
    case "roomAdded":
      return `Room ${change.room?.name} added`;
    case "accessoryAdded":
      return `${change.accessory?.name ?? "An accessory"} added`;
    default:
      if (change.old !== undefined && change.new !== undefined) return `${change.type}: ${change.old} → ${change.new}`;
      return change.type.replace(/([A-Z])/g, " $1").toLowerCase();
  }
};

const accessoryOf = (change) => change.accessoryID ?? change.accessory?.id;

// Who made a change, as people say it; undefined for changes recorded before the hub kept it.
const author = (home, by) => {
  switch (by?.kind) {
    case "person":
      return home.users?.find((user) => user.id === by.userID)?.name ?? "a former member";
    case "automation":
      return "an automation";
    case "accessory":
      return "the accessory";
    case "hub":
      return "the hub";
    default:
      return undefined;
  }
};

// One history entry: what changed, then who made it and when.
const historyItem = (home, event) => {
  const item = element("li", `#${event.sequence} ${describe(home, event.change)}`);
  const who = author(home, event.by);
  const at = event.at ? new Date(event.at) : undefined;
  if (who || at) {
    const parts = [who && `by ${who}`, at && at.toLocaleString([], { dateStyle: "short", timeStyle: "medium" })];
    const meta = element("small", ` ${parts.filter(Boolean).join(", ")}`, { class: "change-meta" });
    if (at) meta.title = at.toISOString();
    item.append(meta);
  }
  return item;
};

const drawHistory = async () => {
  const root = $("history");
  const parts = [element("h2", "History")];
  for (const entry of homes.values()) {
    const { home } = entry;
    const last = sequences.get(home.id) ?? 0;
    let events = [];
    try {
      events = (await api("GET", `/v1/homes/${home.id}/changes?after=${Math.max(0, last - 200)}`)).events ?? [];
    } catch (error) {
      notice(error.message);
    }
    const section = element("section", undefined, { class: "history" });
    section.append(element("h3", home.name));
    const filter = element("select", undefined, { "aria-label": "Show changes of", class: "history-filter" });
    filter.append(element("option", "Everything", { value: "" }));
    for (const room of [...(home.rooms ?? []), home.roomForEntireHome].filter(Boolean)) {
      filter.append(element("option", `Room: ${room.name}`, { value: `room:${room.id}` }));
    }
    for (const accessory of home.accessories ?? []) {
      filter.append(element("option", accessory.name, { value: `accessory:${accessory.id}` }));
    }
    const list = element("ol", undefined, { class: "changes", reversed: true });
    const fill = () => {
      const [kind, id] = filter.value.split(":");
      const items = [];
      for (const event of [...events].reverse()) {
        const accessoryID = accessoryOf(event.change);
        if (kind === "accessory" && accessoryID !== id) continue;
        if (kind === "room") {
          const accessory = home.accessories?.find((a) => a.id === accessoryID);
          if (accessory?.roomID !== id && event.change.room?.id !== id && event.change.roomID !== id) continue;
        }
        items.push(historyItem(home, event));
      }
      list.replaceChildren(...(items.length ? items : [element("li", "No changes.")]));
    };
    filter.addEventListener("change", fill);
    fill();
    section.append(filter, list);
    parts.push(section);
  }
  root.replaceChildren(...parts);
};

// ---- People: users and invites (owners and administrators) ----

const drawPeople = async () => {
  const root = $("people");
  const parts = [element("h2", "People")];
  for (const entry of homes.values()) {
    if (!canConfigure(entry)) continue;
    const { home } = entry;
    const section = element("section", undefined, { class: "people" });
    section.append(element("h3", home.name));
    const users = element("ul", undefined, { class: "users" });
    for (const user of home.users ?? []) {
      const item = element("li", `${user.name} (${user.role})`);
      if (user.role !== "owner") {
        const roles = element("select", undefined, { class: "role", "aria-label": `Role of ${user.name}` });
        const choices = [["shared", "Shared user"], ["administrator", "Administrator"]];
        if (entry.role === "owner") choices.push(["owner", "Owner"]);
        for (const [value, text] of choices) {
          const option = element("option", text, { value });
          option.selected = value === user.role;
          roles.append(option);
        }
        roles.addEventListener("change", async () => {
          try {
            await api("PATCH", `/v1/homes/${home.id}/users/${user.id}`, { role: roles.value });
            notice("");
          } catch (error) {
            notice(error.message);
            roles.value = user.role;
          }
        });
        item.append(" ", roles);
        item.append(" ", button("Remove", async () => {
          if (!window.confirm(`Remove ${user.name} from ${home.name}?`)) return;
          try {
            await api("DELETE", `/v1/homes/${home.id}/users/${user.id}`);
          } catch (error) {
            notice(error.message);
          }
        }, { "aria-label": `Remove ${user.name}` }));
      }
      users.append(item);
    }
    section.append(users);
    const form = element("form", undefined, { class: "invite", "aria-label": "Invite someone" });
    const role = element("select", undefined, { name: "role", "aria-label": "Role" });
    role.append(element("option", "Shared user", { value: "shared" }), element("option", "Administrator", { value: "administrator" }));
    const result = element("div", undefined, { class: "invite-code", "aria-live": "polite" });
    form.append(role, element("button", "Invite", { type: "submit" }), result);
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      try {
        const answer = await api("POST", `/v1/homes/${home.id}/invites`, { role: role.value });
        const image = element("img", undefined, {
          src: `/app/qr.svg?text=${encodeURIComponent(answer.code)}`,
          alt: `QR code of the invite code ${answer.code}`, width: "160", height: "160",
        });
        result.replaceChildren(
          element("p", "The invite code (shown once): "), element("code", answer.code, { class: "code" }), image
        );
      } catch (error) {
        notice(error.message);
      }
    });
    section.append(form);
    parts.push(section);
  }
  root.replaceChildren(...parts);
};

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

const showMe = async () => {
  const me = await api("GET", "/v1/me");
  $("sign-in").hidden = true;
  for (const id of ["sign-out", "who", "views", "command", "account"]) $(id).hidden = false;
  $("who").textContent = `Signed in as ${me.user.name}`;
  startLive();
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
export { api, element, button, notice, homes, canConfigure, short, T, words, say, label, writable, visibleServices };
export { characteristicIndex, runScene, fahrenheit, startLive };
