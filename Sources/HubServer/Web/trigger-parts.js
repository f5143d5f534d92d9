// The parts of the automation form (trigger-form.js): labelled controls, a characteristic and its value, a time
// point, one event and one condition. Each part has `node` and `read(path)`, which gives its JSON for the hub and
// marks its controls with the field the hub names when it refuses one (`events[0].offsetSeconds`).

import { element, short, words, label, visibleServices, fahrenheit } from "./app.js";

export const weekdays = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"];

/** A control with its label (read by screen readers: the label wraps the control). */
export const field = (text, control, attributes = {}) => {
  const node = element("label", undefined, { class: "field", ...attributes });
  node.append(element("span", text), control);
  return node;
};

/** A select of [value, text] pairs. */
export const choose = (className, options, chosen) => {
  const node = element("select", undefined, { class: className });
  for (const [value, text] of options) node.append(element("option", text, { value }));
  if (chosen !== undefined && options.some(([value]) => value === chosen)) node.value = chosen;
  return node;
};

/** A number field; empty reads as `undefined`. */
export const number = (className, value, attributes = {}) => {
  const node = element("input", undefined, { type: "number", class: className, inputmode: "decimal", ...attributes });
  if (value !== undefined && value !== null) node.value = String(value);
  return node;
};
export const numberOf = (input) => (input.value.trim() === "" ? undefined : Number(input.value));

/** Weekday checkboxes in a fieldset; `read()` gives the checked ones in order. */
export const dayPicker = (legend, chosen = [], className = "weekdays") => {
  const node = element("fieldset", undefined, { class: `days ${className}` });
  node.append(element("legend", legend));
  for (const day of weekdays) {
    const box = element("input", undefined, { type: "checkbox", value: day });
    box.checked = chosen.includes(day);
    const item = element("label", undefined, { class: "check" });
    item.append(box, day[0].toUpperCase() + day.slice(1));
    node.append(item);
  }
  return { node, read: () => [...node.querySelectorAll("input:checked")].map((box) => box.value) };
};

const numericFormats = ["int", "float", "uint8", "uint16", "uint32", "uint64"];
const isNumeric = (c) => numericFormats.includes(c.format);

// The named values of a characteristic ([value, words]), or null for a plain number.
const namedValues = (c) => {
  const type = short(c.type);
  if (c.format === "bool") {
    const [yes, no] = { "25": ["On", "Off"], "22": ["Motion", "No motion"] }[type] ?? ["Yes", "No"];
    return [[true, yes], [false, no]];
  }
  const valid = c.metadata?.validValues ?? (words[type] ? words[type].map((_, index) => index) : null);
  return valid ? valid.map((value) => [value, words[type]?.[value] ?? String(value)]) : null;
};

/** A home's characteristics that `keep` accepts, as { accessory, characteristic }. */
export const characteristics = (home, keep) => (home.accessories ?? []).flatMap((accessory) => visibleServices(accessory)
  .flatMap((service) => service.characteristics ?? [])
  .filter((c) => !["tlv8", "data"].includes(c.format) && keep(c))
  .map((c) => ({ accessory, characteristic: c })));

const sendsEvents = (c) => c.permissions?.includes("ev");
const readable = (c) => c.permissions?.includes("pr") || c.permissions?.includes("ev");
const measured = (c) => sendsEvents(c) && isNumeric(c) && !namedValues(c);

/**
 * A value of `c`: a select of its named values, or a number in its unit (a temperature in the home's unit; the
 * hub keeps Celsius). `any`: the first choice is "changes at all" (reads as `undefined`).
 */
export const valueControl = (home, c, value, { className, text, prefix = "", any = false }) => {
  const named = c ? namedValues(c) : null;
  if (named || !c) {
    const options = (named ?? []).map(([v, words_]) => [JSON.stringify(v), `${prefix}${words_}`]);
    if (any) options.unshift(["", "changes at all"]);
    const node = choose(className, options, value === undefined ? "" : JSON.stringify(value));
    return { node: field(text, node), control: node, read: () => (node.value === "" ? undefined : JSON.parse(node.value)) };
  }
  const inF = c.metadata?.unit === "celsius" && fahrenheit(home.id);
  const unit = inF ? "°F" : { celsius: "°C", percentage: "%", arcdegrees: "°", lux: "lx", seconds: "s" }[c.metadata?.unit] ?? "";
  const shown = typeof value === "number" && inF ? Math.round((value * 9 / 5 + 32) * 10) / 10 : value;
  const node = number(className, shown, { step: "any" });
  const read = () => {
    const typed = numberOf(node);
    return typed !== undefined && inF ? Math.round((typed - 32) * 5 / 9 * 100) / 100 : typed;
  };
  const hint = [unit, any ? "empty: any change" : ""].filter(Boolean).join("; ");
  return { node: field(hint ? `${text} (${hint})` : text, node), control: node, read };
};

/** A characteristic picker (of those `keep` accepts) and its value control, redrawn when another is picked. */
export const characteristicWithValue = (home, keep, existing, options) => {
  const node = element("span", undefined, { class: "row" });
  const choices = characteristics(home, keep);
  const named = choices.map(({ accessory, characteristic }) =>
    [characteristic.id, `${accessory.name}: ${label(characteristic)}`]);
  // One that is gone stays chosen (the hub then says so) rather than another taking its place unseen.
  if (existing?.id && !named.some(([id]) => id === existing.id)) {
    named.unshift([existing.id, "A characteristic that is gone"]);
  }
  const picker = choose(options.pickerClass, named, existing?.id);
  const pickerField = field(options.pickerText, picker);
  let value;
  const draw = (chosen) => {
    const c = choices.find((choice) => choice.characteristic.id === picker.value)?.characteristic;
    value = valueControl(home, c, chosen, options);
    node.replaceChildren(pickerField, ...(options.between ?? []), value.node);
  };
  picker.addEventListener("change", () => draw(undefined));
  draw(existing?.value);
  return {
    node, picker,
    characteristic: () => choices.find((choice) => choice.characteristic.id === picker.value)?.characteristic,
    value: () => value,
  };
};

// A time point's text (`18:00`, `sunset`, `sunset-30m`) as its parts.
const timePointParts = (text) => {
  const match = /^(sunrise|sunset)(?:([+-])(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?)?$/.exec(text ?? "");
  if (!match) return text ? { kind: "clock", clock: text } : { kind: "" };
  const minutes = Number(match[3] ?? 0) * 60 + Number(match[4] ?? 0) + Math.round(Number(match[5] ?? 0) / 60);
  return { kind: match[1], minutes, direction: match[2] === "-" ? "before" : "after" };
};

/** "Only after" or "only before": any time, a clock time, or sunrise/sunset with an offset in minutes. */
const timePoint = (name, text, existing) => {
  const parts = timePointParts(existing);
  const node = element("fieldset", undefined, { class: `time-point time-${name}` });
  node.append(element("legend", text));
  const kind = choose(`time-${name}-kind`, [["", "Any time"], ["clock", "A clock time"], ["sunrise", "Sunrise"],
    ["sunset", "Sunset"]], parts.kind);
  const clock = element("input", undefined, { type: "time", step: "1", class: `time-${name}-clock` });
  if (parts.clock) clock.value = parts.clock;
  const minutes = number(`time-${name}-minutes`, parts.minutes ?? 0, { min: "0", step: "1" });
  const direction = choose(`time-${name}-direction`, [["before", "before"], ["after", "after"]], parts.direction ?? "before");
  const clockField = field("Clock time", clock);
  const sunFields = [field("Minutes", minutes), field("Before or after", direction)];
  const show = () => {
    clockField.hidden = kind.value !== "clock";
    for (const part of sunFields) part.hidden = !["sunrise", "sunset"].includes(kind.value);
  };
  kind.addEventListener("change", show);
  show();
  node.append(field(text, kind), clockField, ...sunFields);
  const read = (path) => {
    for (const control of [kind, clock, minutes, direction]) control.dataset.field = path;
    if (kind.value === "clock") return clock.value || undefined;
    if (!kind.value) return undefined;
    const offset = numberOf(minutes) ?? 0;
    return offset ? `${kind.value}${direction.value === "before" ? "-" : "+"}${offset}m` : kind.value;
  };
  return { node, read };
};

const conditionKinds = [["time", "The time"], ["value", "An accessory's value"], ["presence", "Who is home"],
  ["notFired", "It has not fired lately"]];
const comparisonChoices = [["==", "is (=)"], ["!=", "is not (≠)"], ["<", "is below (<)"], ["<=", "is at most (≤)"],
  [">", "is above (>)"], [">=", "is at least (≥)"]];

/** Whether a condition is one the form edits as a row (not all / any / not). */
export const isSimple = (c) => Boolean(c && (c.time || c.characteristic || c.presence || c.notFiredWithin));

/** One condition: a kind and its controls. `kinds` limits the kinds (a duration holds on values and presence). */
export const conditionRow = (home, existing, kinds = conditionKinds.map(([kind]) => kind), className = "condition") => {
  const node = element("div", undefined, { class: className });
  const initial = existing?.time ? "time" : existing?.characteristic ? "value" : existing?.presence ? "presence"
    : existing?.notFiredWithin ? "notFired" : kinds[0];
  const kind = choose("condition-kind", conditionKinds.filter(([k]) => kinds.includes(k)), initial);
  const body = element("div", undefined, { class: "row" });
  let read = () => undefined;
  const draw = (from) => {
    const users = home.users ?? [];
    if (kind.value === "time") {
      const after = timePoint("after", "Only after", from?.time?.after);
      const before = timePoint("before", "Only before", from?.time?.before);
      body.replaceChildren(after.node, before.node);
      read = (path) => {
        const time = {};
        const a = after.read(`${path}.time.after`);
        const b = before.read(`${path}.time.before`);
        if (a) time.after = a;
        if (b) time.before = b;
        return { time };
      };
    } else if (kind.value === "value") {
      const comparison = choose("condition-comparison", comparisonChoices, from?.characteristic?.comparison ?? "==");
      const pair = characteristicWithValue(home, readable, from?.characteristic, {
        pickerClass: "condition-characteristic", pickerText: "Accessory value", className: "condition-value",
        text: "Value", between: [field("Comparison", comparison)],
      });
      body.replaceChildren(pair.node);
      read = (path) => {
        pair.picker.dataset.field = `${path}.characteristic.id`;
        comparison.dataset.field = `${path}.characteristic.comparison`;
        pair.value().control.dataset.field = `${path}.characteristic.value`;
        return { characteristic: { id: pair.picker.value, comparison: comparison.value, value: pair.value().read() } };
      };
    } else if (kind.value === "presence") {
      const p = from?.presence;
      const chosen = typeof p === "string" ? p : p?.userHome ? `home:${p.userHome}` : p?.userAway ? `away:${p.userAway}` : "anyone";
      const who = choose("condition-presence", [["anyone", "Someone is home"], ["noOne", "No one is home"],
        ...users.flatMap((user) => [[`home:${user.id}`, `${user.name} is home`], [`away:${user.id}`, `${user.name} is away`]])],
      chosen);
      body.replaceChildren(field("Who", who));
      read = (path) => {
        who.dataset.field = `${path}.presence`;
        const [side, id] = who.value.split(":");
        return { presence: id ? { [side === "home" ? "userHome" : "userAway"]: id } : who.value };
      };
    } else {
      const minutes = number("condition-minutes", from?.notFiredWithin ? from.notFiredWithin.seconds / 60 : 60,
        { min: "1", step: "any" });
      body.replaceChildren(field("Not fired in the last (minutes)", minutes));
      read = (path) => {
        minutes.dataset.field = `${path}.notFiredWithin`;
        const typed = numberOf(minutes);
        return { notFiredWithin: { seconds: typed === undefined ? undefined : Math.round(typed * 60) } };
      };
    }
  };
  kind.addEventListener("change", () => draw(undefined));
  draw(existing);
  node.append(field("Condition", kind), body);
  return { node, read: (path) => read(path) };
};

const eventKinds = [["value", "An accessory's value"], ["range", "A value enters a range"], ["clock", "A time of day"],
  ["sun", "Sunrise or sunset"], ["presence", "People arrive or leave"], ["location", "Someone enters or leaves a place"],
  ["duration", "Something lasts"]];
const presenceChanges = [["everyEntry", "arrives (every time)"], ["everyExit", "leaves (every time)"],
  ["firstEntry", "arrives first (no one was home)"], ["lastExit", "leaves last (no one is left)"]];

const kindOf = (e) => (e.characteristic ? "value" : e.threshold ? "range" : e.calendar ? "clock"
  : e.significantTime ? "sun" : e.presence ? "presence" : e.location ? "location" : e.duration ? "duration" : "kept");

/**
 * Whom a presence or location event is about (`scope`: "everyUser", "currentUser" or user ids), as checkboxes:
 * anyone, its creator, or the people ticked. Anyone and its creator stand alone: ticking one clears the rest.
 */
const userPicker = (home, className, scope = "everyUser") => {
  const node = element("fieldset", undefined, { class: `who ${className}` });
  node.append(element("legend", "Who"));
  const ids = Array.isArray(scope) ? scope : [];
  const people = (home.users ?? []).map((user) => [user.id, user.name]);
  for (const id of ids) if (!people.some(([known]) => known === id)) people.push([id, "A user who is gone"]);
  const boxes = [];
  const add = (value, text, checked) => {
    const box = element("input", undefined, { type: "checkbox", value });
    box.checked = checked;
    const item = element("label", undefined, { class: "check" });
    item.append(box, text);
    node.append(item);
    boxes.push(box);
    return box;
  };
  const alone = [add("everyUser", "Anyone", scope === "everyUser"), add("currentUser", "Its creator", scope === "currentUser")];
  for (const [id, name] of people) add(id, name, ids.includes(id));
  node.addEventListener("change", ({ target }) => {
    if (!target.checked) return;
    for (const box of boxes) if (box !== target && (alone.includes(box) || alone.includes(target))) box.checked = false;
  });
  const read = (path) => {
    boxes[0].dataset.field = path;
    const kept = alone.find((box) => box.checked)?.value;
    const chosen = boxes.filter((box) => box.checked).map((box) => box.value);
    // The saved order first, so that saving unchanged changes nothing.
    return kept ?? [...ids.filter((id) => chosen.includes(id)), ...chosen.filter((id) => !ids.includes(id))];
  };
  return { node, read };
};

/** One event: a kind and its controls; an event the form cannot edit is kept as it is, in words. */
export const eventRow = (home, existing, say) => {
  const node = element("li", undefined, { class: "event" });
  const initial = existing ? kindOf(existing) : "value";
  if (initial === "kept") {
    node.append(element("p", `${say(existing)} (kept as it is)`, { class: "kept" }));
    return { node, read: () => existing };
  }
  const kind = choose("event-kind", eventKinds, initial);
  const body = element("div", undefined, { class: "row" });
  let read = () => undefined;
  const draw = (from) => {
    if (kind.value === "value") {
      const pair = characteristicWithValue(home, sendsEvents, from?.characteristic, {
        pickerClass: "trigger-source", pickerText: "Accessory value", className: "trigger-value", text: "Becomes",
        prefix: "becomes ", any: true,
      });
      body.replaceChildren(pair.node);
      read = (path) => {
        pair.picker.dataset.field = `${path}.id`;
        pair.value().control.dataset.field = `${path}.value`;
        const value = pair.value().read();
        return { characteristic: value === undefined ? { id: pair.picker.value } : { id: pair.picker.value, value } };
      };
    } else if (kind.value === "range") {
      const t = from?.threshold;
      const mode = choose("range-mode", [["above", "rises to or above"], ["below", "falls to or below"],
        ["between", "goes between"]], t ? (t.min !== undefined && t.max !== undefined ? "between" : t.min !== undefined ? "above" : "below") : "above");
      const pair = characteristicWithValue(home, measured, t ? { id: t.id, value: t.min ?? t.max } : undefined, {
        pickerClass: "range-characteristic", pickerText: "Accessory value", className: "range-low", text: "Value",
        between: [field("Goes", mode)],
      });
      const high = () => valueControl(home, pair.characteristic(), mode.value === "between" ? t?.max : undefined,
        { className: "range-high", text: "and" });
      let upper = high();
      const show = () => {
        upper.node.remove();
        upper = high();
        if (mode.value === "between") body.append(upper.node);
      };
      mode.addEventListener("change", show);
      pair.picker.addEventListener("change", show);
      body.replaceChildren(pair.node);
      show();
      read = (path) => {
        pair.picker.dataset.field = `${path}.id`;
        const low = pair.value().read();
        const threshold = { id: pair.picker.value };
        if (mode.value === "below") {
          pair.value().control.dataset.field = `${path}.max`;
          threshold.max = low;
        } else {
          pair.value().control.dataset.field = `${path}.min`;
          threshold.min = low;
        }
        if (mode.value === "between") {
          upper.control.dataset.field = `${path}.max`;
          threshold.max = upper.read();
        }
        return { threshold };
      };
    } else if (kind.value === "clock") {
      const time = element("input", undefined, { type: "time", class: "clock-time" });
      time.value = from?.calendar?.time ?? "07:00";
      const days = dayPicker("On (none: every day)", from?.calendar?.weekdays ?? []);
      body.replaceChildren(field("At", time), days.node);
      read = (path) => {
        time.dataset.field = `${path}.time`;
        return { calendar: { time: time.value, weekdays: days.read() } };
      };
    } else if (kind.value === "sun") {
      const s = from?.significantTime;
      const sun = choose("sun-event", [["sunrise", "Sunrise"], ["sunset", "Sunset"]], s?.sun ?? "sunset");
      const minutes = number("sun-minutes", s ? Math.abs(s.offsetSeconds) / 60 : 0, { min: "0", step: "any" });
      const direction = choose("sun-direction", [["before", "before"], ["after", "after"]],
        s?.offsetSeconds > 0 ? "after" : "before");
      body.replaceChildren(field("Minutes", minutes), field("Before or after", direction), field("Sun", sun));
      read = (path) => {
        minutes.dataset.field = `${path}.offsetSeconds`;
        const offset = Math.round((numberOf(minutes) ?? 0) * 60);
        return { significantTime: { sun: sun.value, offsetSeconds: direction.value === "before" ? -offset : offset } };
      };
    } else if (kind.value === "presence") {
      const p = from?.presence;
      const who = userPicker(home, "presence-who", p?.users);
      const change = choose("presence-change", presenceChanges, p?.change ?? "everyEntry");
      body.replaceChildren(who.node, field("Does what", change));
      read = (path) => ({ presence: { change: change.value, users: who.read(`${path}.users`) } });
    } else if (kind.value === "location") {
      const l = from?.location;
      const place = element("input", undefined, { class: "location-name", maxlength: "64", placeholder: "Office" });
      place.value = l?.region?.name ?? "";
      const latitude = number("location-latitude", l?.region?.center?.latitude, { min: "-90", max: "90", step: "any" });
      const longitude = number("location-longitude", l?.region?.center?.longitude, { min: "-180", max: "180", step: "any" });
      const radius = number("location-radius", l?.region?.radius ?? 100, { min: "10", max: "100000", step: "any" });
      const transition = choose("location-transition", [["entry", "enters"], ["exit", "leaves"]], l?.transition ?? "entry");
      const who = userPicker(home, "location-who", l?.users);
      body.replaceChildren(field("Place", place), field("Latitude (°, −90 to 90)", latitude),
        field("Longitude (°, −180 to 180)", longitude), field("Radius (metres)", radius), field("Enters or leaves", transition),
        who.node);
      read = (path) => {
        const region = `${path}.region`;
        place.dataset.field = `${region}.name`;
        // The hub names the centre: the control marked for it is the latitude when that is out of range.
        const lat = numberOf(latitude);
        const latitudeFits = lat !== undefined && Math.abs(lat) <= 90;
        latitude.dataset.field = latitudeFits ? `${region}.center.latitude` : `${region}.center`;
        longitude.dataset.field = latitudeFits ? `${region}.center` : `${region}.center.longitude`;
        radius.dataset.field = `${region}.radius`;
        return { location: {
          region: { name: place.value, center: { latitude: lat, longitude: numberOf(longitude) }, radius: numberOf(radius) },
          transition: transition.value, users: who.read(`${path}.users`),
        } };
      };
    } else {
      const d = from?.duration;
      const what = conditionRow(home, d?.condition, ["value", "presence"], "lasting");
      const minutes = number("duration-minutes", d ? d.seconds / 60 : 10, { min: "1", step: "any" });
      body.replaceChildren(what.node, field("For (minutes)", minutes));
      read = (path) => {
        minutes.dataset.field = `${path}.seconds`;
        const typed = numberOf(minutes);
        return { duration: { condition: what.read(`${path}.condition`), seconds: typed === undefined ? undefined : Math.round(typed * 60) } };
      };
    }
  };
  kind.addEventListener("change", () => draw(undefined));
  draw(existing);
  node.append(field("Event", kind), body);
  return { node, read: (path) => read(path) };
};
