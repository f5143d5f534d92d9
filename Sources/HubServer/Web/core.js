// The page's shared part: talking to the hub, making elements, HAP types and how their values are said, and the
// homes as the page keeps them (with an index of their characteristics). Every other module imports from here.

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
// Worked out once per type: a tile asks for the short types of its accessory's characteristics many times.
const shortTypes = new Map();
const short = (type) => {
  let name = shortTypes.get(type);
  if (name === undefined) {
    const upper = String(type).toUpperCase();
    name = upper.endsWith("-0000-1000-8000-0026BB765291") ? upper.slice(0, 8).replace(/^0+/, "") || "0" : upper;
    if (shortTypes.size >= 4096) shortTypes.clear();
    shortTypes.set(type, name);
  }
  return name;
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

// Each accessory's characteristics by short type, in service order, with their service's short type: made the first
// time a tile looks into the accessory. Values change in place; a home whose shape changes is loaded anew, with new
// accessory objects, so an index never goes stale.
const characteristicsByType = new WeakMap();
const find = (accessory, type, serviceTypes) => {
  let index = characteristicsByType.get(accessory);
  if (!index) {
    index = new Map();
    for (const service of accessory.services ?? []) {
      const serviceType = short(service.type);
      for (const characteristic of service.characteristics ?? []) {
        const key = short(characteristic.type);
        if (!index.has(key)) index.set(key, []);
        index.get(key).push({ serviceType, characteristic });
      }
    }
    characteristicsByType.set(accessory, index);
  }
  for (const { serviceType, characteristic } of index.get(type) ?? []) {
    if (!serviceTypes || serviceTypes.includes(serviceType)) return characteristic;
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

export {
  api, element, button, $, notice, short, T, S, words, fahrenheit, round, say, label, writable, isHiddenCharacteristic, visibleServices, find, mainService, homes, characteristicIndex, canConfigure, indexHome,
};
