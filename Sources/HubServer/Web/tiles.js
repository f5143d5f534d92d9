// The home view: a section per home with its scenes, a section per room with a tile per accessory (its state in
// words and its main control), and the detail dialog of one accessory with every characteristic. Writes go to the
// hub and the tile shows the value it answers; app.js redraws a home when the event WebSocket says it changed.

import {
  api, element, button, $, notice, short, T, S, words, say, round, label, writable, isHiddenCharacteristic,
  visibleServices, find, mainService, homes, characteristicIndex, canConfigure,
} from "./core.js";

let detail = null; // { homeID, accessoryID } while the detail view is open

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

const isOnValue = (characteristic) => characteristic?.value === true || characteristic?.value === 1;

// The tile's main control: a toggle, a slider, the thermostat's steps, or lock and unlock. Each part that shows a
// value is listed in `shown` with how to show it; the handlers read the value when pressed, so a tile is updated in
// place when a value changes (fillTile) and never has to be made again.
const tileControls = (entry, accessory, shown) => {
  const homeID = entry.home.id;
  const controls = element("div", undefined, { class: "controls" });
  const service = mainService(accessory);
  const type = service ? short(service.type) : "";
  const get = (characteristicType) => find(accessory, characteristicType);
  const on = get(T.on) ?? get(T.active);
  const control = (node, show) => {
    controls.append(node);
    if (show) shown.push(show);
  };
  if (type === S.thermostat) {
    const target = get(T.targetTemperature);
    if (target && writable(target)) {
      const step = (delta) => () => {
        const meta = target.metadata ?? {};
        const next = Math.min(meta.maxValue ?? 38, Math.max(meta.minValue ?? 10, (target.value ?? 20) + delta));
        write(homeID, target, round(next, 0.1));
      };
      control(button("−", step(-0.5), { class: "step", "aria-label": `Lower ${accessory.name} by half a degree` }));
      const shownTarget = element("span", undefined, { class: "target", "aria-hidden": "true" });
      control(shownTarget, () => { shownTarget.textContent = say(target); });
      control(button("+", step(0.5), { class: "step", "aria-label": `Raise ${accessory.name} by half a degree` }));
    }
  } else if (type === S.lock) {
    const target = get(T.lockTarget);
    if (target && writable(target)) {
      const current = get(T.lockCurrent);
      const locked = () => (current?.value ?? target.value) === 1;
      const toggle = button("", () => {
        const wasLocked = locked();
        if (confirmLock(accessory, !wasLocked)) write(homeID, target, wasLocked ? 0 : 1);
      }, { class: "toggle" });
      control(toggle, () => { toggle.textContent = locked() ? "Unlock" : "Lock"; });
    }
  } else if (type === S.garage) {
    const target = get(T.doorTarget);
    if (target && writable(target)) {
      const toggle = button("", () => write(homeID, target, target.value === 1 ? 0 : 1), { class: "toggle" });
      control(toggle, () => { toggle.textContent = target.value === 1 ? "Open" : "Close"; });
    }
  } else if ([S.windowCovering, S.door, S.window].includes(type)) {
    const target = get(T.targetPosition);
    if (target && writable(target)) slider(homeID, accessory, target, "Position", control);
  } else if (on && writable(on)) {
    const toggle = button("", () => {
      const isOn = isOnValue(on);
      write(homeID, on, typeof on.value === "number" ? (isOn ? 0 : 1) : !isOn);
    }, { class: "toggle" });
    control(toggle, () => {
      toggle.textContent = isOnValue(on) ? "Turn off" : "Turn on";
      toggle.setAttribute("aria-pressed", isOnValue(on) ? "true" : "false");
    });
    const brightness = get(T.brightness);
    if (brightness && writable(brightness)) slider(homeID, accessory, brightness, "Brightness", control);
    const temperature = get(T.colorTemperature);
    if (temperature && writable(temperature)) {
      slider(homeID, accessory, temperature, "Colour temperature", control);
    }
  }
  return controls;
};

// A range input that writes once, when the person lets go.
const slider = (homeID, accessory, characteristic, name, control) => {
  const meta = characteristic.metadata ?? {};
  const input = element("input", undefined, {
    type: "range",
    min: meta.minValue ?? 0,
    max: meta.maxValue ?? 100,
    step: meta.minStep ?? 1,
    "aria-label": `${name} of ${accessory.name}`,
    "data-characteristic": short(characteristic.type),
  });
  input.addEventListener("change", () => write(homeID, characteristic, Number(input.value)));
  control(input, () => {
    const value = String(characteristic.value ?? meta.minValue ?? 0);
    if (input.value !== value) input.value = value;
  });
};

// What fillTile needs of each tile: its parts that show values, and the accessory it shows.
const tileParts = new WeakMap();

const tile = (entry, accessory) => {
  const node = element("article", undefined, {
    class: "tile",
    "data-accessory-id": accessory.id,
    "data-name": accessory.name,
    "aria-label": accessory.name,
  });
  const name = button(accessory.name, () => openDetail(entry.home.id, accessory.id), {
    class: "name", "aria-haspopup": "dialog",
  });
  const state = element("p", undefined, { class: "state" });
  const badges = element("p", undefined, { class: "badges" });
  const shown = [];
  const controls = tileControls(entry, accessory, shown);
  node.append(name, state, badges, controls);
  const inputs = [...controls.querySelectorAll("button, input")];
  tileParts.set(node, { accessory, state, badges, inputs, shown, badgeText: null });
  fillTile(node);
  return node;
};

// Shows the accessory's current values in its tile: classes, state in words, badges and controls. Only what differs
// is touched, so focus, a screen reader's place and the other tiles stay as they are.
function fillTile(node) {
  const parts = tileParts.get(node);
  const { accessory } = parts;
  const unreachable = accessory.isReachable === false;
  node.classList.toggle("unreachable", unreachable);
  node.classList.toggle("on", isOnValue(find(accessory, T.on) ?? find(accessory, T.active)));
  const text = summary(accessory);
  if (parts.state.textContent !== text) parts.state.textContent = text;
  const low = (accessory.services ?? []).some((service) =>
    (service.characteristics ?? []).some((c) => short(c.type) === T.lowBattery && c.value === 1));
  const badgeText = `${unreachable}/${low}`;
  if (parts.badgeText !== badgeText) {
    parts.badgeText = badgeText;
    parts.badges.replaceChildren();
    if (unreachable) parts.badges.append(element("span", "Unreachable", { class: "badge warn" }));
    if (low) parts.badges.append(element("span", "Battery low", { class: "badge warn" }));
    parts.badges.hidden = parts.badges.childElementCount === 0;
  }
  for (const show of parts.shown) show();
  for (const input of parts.inputs) {
    if (input.disabled !== unreachable) input.disabled = unreachable;
  }
}

function refreshTile(homeID, accessoryID) {
  const entry = homes.get(homeID);
  const accessory = entry?.home.accessories?.find((candidate) => candidate.id === accessoryID);
  const node = entry?.tiles.get(accessoryID);
  if (!accessory || !node) return;
  // A home loaded again gets new tiles (drawHome), so a tile always shows the accessory object it was made for.
  fillTile(node);
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

// Draws the detail view again if it is open (on a home's accessory, when `homeID` is given).
const redrawDetail = (homeID) => {
  if (detail && (homeID === undefined || detail.homeID === homeID)) drawDetail();
};

export { drawHome, applyValue, refreshTile, runScene, redrawDetail };
