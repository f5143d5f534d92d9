// The automation form of the Automations screen (loaded with it, not with the page): a new trigger, or an existing
// one filled in and saved whole with the hub's update route. What starts it (events, any of which fires it, or a
// timer with a recurrence), the conditions that must all hold, the scenes to run, an end after some minutes or at
// an end event, execute once and catch-up. A condition the form cannot edit as a flat list (any / not, nested) is
// shown in words and kept as it is. When the hub refuses a definition its message (which names the field) shows
// next to the form and the control it names is marked.

import { api, element, button } from "./app.js";
import { field, choose, number, numberOf, dayPicker, conditionRow, eventRow, isSimple } from "./trigger-parts.js";

let formCount = 0;

// Scene checkboxes in a fieldset; `read()` gives the checked ids.
const scenePicker = (home, legend, className, chosen = []) => {
  const node = element("fieldset", undefined, { class: className });
  node.append(element("legend", legend));
  for (const scene of home.actionSets ?? []) {
    const box = element("input", undefined, { type: "checkbox", value: scene.id });
    box.checked = chosen.includes(scene.id);
    const item = element("label", undefined, { class: "check" });
    item.append(box, scene.name);
    node.append(item);
  }
  if (!(home.actionSets ?? []).length) node.append(element("span", "No scenes yet.", { class: "muted" }));
  return { node, read: () => [...node.querySelectorAll("input:checked")].map((box) => box.value) };
};

// A list of rows (events or conditions) with an add button and a remove button on each row.
const rowList = (className, addText, removeText, make, initial) => {
  const list = element("ol", undefined, { class: `rows ${className}` });
  const rows = [];
  const add = (existing) => {
    const row = make(existing);
    const item = row.node.tagName === "LI" ? row.node : element("li");
    if (item !== row.node) item.append(row.node);
    const entry = { row, item };
    item.append(button(removeText, () => {
      rows.splice(rows.indexOf(entry), 1);
      item.remove();
      list.querySelector("select, input, button")?.focus();
    }, { class: "remove-row" }));
    rows.push(entry);
    list.append(item);
    return item;
  };
  for (const existing of initial) add(existing);
  const addButton = button(addText, () => add(undefined).querySelector("select, input")?.focus(), { class: `add-${className}` });
  return { list, addButton, read: (path) => rows.map(({ row }, index) => row.read(path(index))) };
};

/** The timer: its first date and time and how it repeats. */
const timerPart = (timer) => {
  const node = element("fieldset", undefined, { class: "trigger-timer" });
  node.append(element("legend", "Timer"));
  const date = element("input", undefined, { type: "datetime-local", class: "timer-date" });
  date.value = timer?.fireDate ?? "";
  const r = timer?.recurrence;
  const repeat = choose("timer-repeat", [["", "Once"], ["every", "Every …"], ["weekdays", "On weekdays"],
    ["daysOfMonth", "On days of the month"]], r?.every ? "every" : r?.weekdays ? "weekdays" : r?.daysOfMonth ? "daysOfMonth" : "");
  const count = number("timer-count", r?.every?.count ?? 1, { min: "1", step: "1" });
  const unit = choose("timer-unit", [["minute", "minutes"], ["hour", "hours"], ["day", "days"], ["week", "weeks"]],
    r?.every?.unit ?? "day");
  const days = dayPicker("Repeat on", r?.weekdays ?? [], "timer-weekdays");
  const monthDays = element("input", undefined, { class: "timer-days", inputmode: "numeric", placeholder: "1, 15" });
  monthDays.value = (r?.daysOfMonth ?? []).join(", ");
  const everyFields = [field("Every", count), field("Unit", unit)];
  const monthField = field("Days of the month (1 to 31, commas between)", monthDays);
  const show = () => {
    for (const part of everyFields) part.hidden = repeat.value !== "every";
    days.node.hidden = repeat.value !== "weekdays";
    monthField.hidden = repeat.value !== "daysOfMonth";
  };
  repeat.addEventListener("change", show);
  show();
  node.append(field("First time (the home's time zone)", date), field("Repeat", repeat), ...everyFields, days.node, monthField);
  const read = () => {
    date.dataset.field = "timer.fireDate";
    count.dataset.field = "timer.recurrence.every.count";
    monthDays.dataset.field = "timer.recurrence.daysOfMonth";
    const result = { fireDate: date.value };
    if (repeat.value === "every") result.recurrence = { every: { count: numberOf(count), unit: unit.value } };
    if (repeat.value === "weekdays") result.recurrence = { weekdays: days.read() };
    if (repeat.value === "daysOfMonth") {
      result.recurrence = { daysOfMonth: monthDays.value.split(/[\s,]+/).filter(Boolean).map(Number) };
    }
    return result;
  };
  return { node, read };
};

/**
 * The end: nothing, the trigger's writes undone, or scenes run, some minutes after a firing, or when one of its end
 * events happens first (with no minutes: only then).
 */
const endPart = (home, end, sayEvent) => {
  const node = element("fieldset", undefined, { class: "trigger-end" });
  node.append(element("legend", "Afterwards"));
  const kind = choose("end-kind", [["", "Nothing"], ["undo", "Turn off again (undo its changes)"], ["scenes", "Run scenes"]],
    end ? (end.actionSetIDs?.length ? "scenes" : "undo") : "");
  const minutes = number("end-minutes", end ? (end.afterSeconds ? end.afterSeconds / 60 : undefined) : 10,
    { min: "1", step: "any" });
  const scenes = scenePicker(home, "Scenes to run afterwards", "end-scenes", end?.actionSetIDs ?? []);
  const minutesField = field("After (minutes; empty: only when an end event happens)", minutes);
  const events = rowList("end-event", "Add an end event", "Remove this end event",
    (existing) => eventRow(home, existing, (e) => sayEvent(home, e)), end?.events ?? []);
  events.addButton.dataset.field = "end";  // "an end needs a delay (afterSeconds) or at least one event"
  const eventBox = element("fieldset", undefined, { class: "end-events" });
  eventBox.append(element("legend", "Or sooner, when any of these happens"), events.list, events.addButton);
  const show = () => {
    minutesField.hidden = !kind.value;
    eventBox.hidden = !kind.value;
    scenes.node.hidden = kind.value !== "scenes";
  };
  kind.addEventListener("change", show);
  show();
  node.append(field("Then", kind), minutesField, eventBox, scenes.node);
  const read = () => {
    if (!kind.value) return undefined;
    minutes.dataset.field = "end.afterSeconds";
    const typed = numberOf(minutes);
    const result = {};
    if (typed !== undefined) result.afterSeconds = Math.round(typed * 60);
    const list = events.read((index) => `end.events[${index}]`);
    if (list.length) result.events = list;
    result.actionSetIDs = kind.value === "scenes" ? scenes.read() : [];
    return result;
  };
  return { node, read };
};

/**
 * The form for `trigger` (undefined: a new one) of `home`. `say` gives a condition or event in words (for parts
 * kept as they are); `done(form)` runs after the hub took it; `cancel` (editing only) closes the form.
 */
export const triggerForm = (home, trigger, { sayCondition, sayEvent, done, cancel }) => {
  const d = trigger?.definition ?? {};
  const editing = Boolean(trigger);
  formCount += 1;
  const errorID = `trigger-error-${formCount}`;
  const form = element("form", undefined, { class: "config trigger-editor", novalidate: true,
    "aria-label": editing ? `Edit ${trigger.name}` : "New automation" });
  form.addEventListener("input", () => { form.dataset.dirty = "true"; });
  const name = element("input", undefined, { name: "name", required: true, maxlength: "64", class: "trigger-name" });
  name.value = trigger?.name ?? "";
  const start = choose("trigger-start", [["events", "When any of these happens"], ["timer", "At a time (a timer)"]],
    d.timer ? "timer" : "events");

  const events = rowList("event", "Add an event", "Remove this event", (existing) => eventRow(home, existing, (e) => sayEvent(home, e)),
    d.timer ? [] : (d.events?.length ? d.events : [undefined]));
  events.addButton.dataset.field = "events"; // "a trigger needs a timer or at least one event"
  const eventBox = element("fieldset", undefined, { class: "trigger-events" });
  eventBox.append(element("legend", "When any of these happens"), events.list, events.addButton);
  const timer = timerPart(d.timer);
  const showStart = () => {
    eventBox.hidden = start.value !== "events";
    timer.node.hidden = start.value !== "timer";
  };
  start.addEventListener("change", showStart);
  showStart();

  // Conditions: a flat list that must all hold; any other tree is kept and shown in words.
  const flat = !d.condition ? [] : isSimple(d.condition) ? [d.condition]
    : d.condition.all?.every(isSimple) ? d.condition.all : null;
  let keptCondition = flat ? null : d.condition;
  const conditions = rowList("condition", "Add a condition", "Remove this condition", (existing) => conditionRow(home, existing), flat ?? []);
  const conditionBox = element("fieldset", undefined, { class: "trigger-conditions" });
  conditionBox.append(element("legend", "Only if all of these hold"));
  if (keptCondition) {
    const kept = element("p", undefined, { class: "kept-condition" });
    kept.append(`Only if ${sayCondition(home, keptCondition)} (kept as it is; change it with hearth trigger). `,
      button("Replace it with a list", () => {
        keptCondition = null;
        kept.replaceWith(conditions.list, conditions.addButton);
        conditions.addButton.focus();
      }, { class: "replace-condition" }));
    conditionBox.append(kept);
  } else {
    conditionBox.append(conditions.list, conditions.addButton);
  }

  const scenes = scenePicker(home, "Then run", "trigger-scenes", trigger?.actionSetIDs ?? []);
  const end = endPart(home, d.end, sayEvent);
  const once = element("input", undefined, { type: "checkbox", class: "execute-once" });
  once.checked = Boolean(d.executeOnce);
  const onceField = element("label", undefined, { class: "check" });
  onceField.append(once, "Only once (turns itself off after firing)");
  const catchUp = number("catch-up", d.catchUpSeconds ? d.catchUpSeconds / 60 : 0, { min: "0", step: "any" });
  const error = element("p", undefined, { class: "form-error", id: errorID, role: "alert", "aria-live": "assertive" });
  const submit = element("button", editing ? "Save changes" : "Add automation", { type: "submit" });
  const buttons = element("div", undefined, { class: "row" });
  buttons.append(submit);
  if (cancel) buttons.append(button("Cancel", cancel, { class: "cancel-edit" }));
  form.append(field("Name", name), field("What starts it", start), eventBox, timer.node, conditionBox, scenes.node,
    end.node, onceField, field("Run late after a restart if missed by at most (minutes; 0: never)", catchUp), error, buttons);

  const definition = () => {
    const result = {};
    if (start.value === "timer") result.timer = timer.read();
    else result.events = events.read((index) => `events[${index}]`);
    if (keptCondition) {
      result.condition = keptCondition;
    } else {
      const list = conditions.read((index) => `condition.all[${index}]`);
      if (list.length === 1) result.condition = conditions.read(() => "condition")[0];
      else if (list.length) result.condition = { all: list };
    }
    const after = end.read();
    if (after) result.end = after;
    if (once.checked) result.executeOnce = true;
    catchUp.dataset.field = "catchUpSeconds";
    const late = numberOf(catchUp);
    if (late) result.catchUpSeconds = Math.round(late * 60);
    return result;
  };

  // Marks the control the hub's message names (the longest field path it starts with).
  const mark = (message) => {
    for (const node of form.querySelectorAll("[aria-invalid]")) {
      node.removeAttribute("aria-invalid");
      node.removeAttribute("aria-describedby");
    }
    // A body the hub could not read names the event's kind (`events[0].location.region.radius`); its checks do not.
    const named = /field '([^']+)'/.exec(message)?.[1]?.replace(/^definition\./, "")
      .replace(/(events\[\d+\])\.(?:characteristic|threshold|calendar|significantTime|presence|location|duration)(?=[.[]|$)/, "$1");
    if (!named) return;
    let best = null;
    for (const node of form.querySelectorAll("[data-field]")) {
      const path = node.dataset.field;
      const fits = named === path || named.startsWith(`${path}.`) || named.startsWith(`${path}[`);
      if (fits && !node.closest("[hidden]") && (!best || path.length > best.dataset.field.length)) best = node;
    }
    if (!best && named === "name") best = name;
    if (best) {
      best.setAttribute("aria-invalid", "true");
      best.setAttribute("aria-describedby", errorID);
      best.focus();
    }
  };

  form.addEventListener("submit", async (event_) => {
    event_.preventDefault();
    error.textContent = "";
    name.dataset.field = "name";
    const body = { name: name.value.trim(), actionSetIDs: scenes.read(), definition: definition() };
    submit.disabled = true;
    try {
      if (editing) await api("PATCH", `/v1/homes/${home.id}/triggers/${trigger.id}`, body);
      else await api("POST", `/v1/homes/${home.id}/triggers`, body);
      done(form, body.name);
    } catch (failure) {
      error.textContent = failure.message;
      mark(failure.message);
    } finally {
      submit.disabled = false;
    }
  });
  return form;
};
