// The Automations screen (owners and administrators): each home's triggers in words (what fires them, what must
// hold, what they run), turned on or off, removed, and each one's recent decisions from the hub's explain route
// ("why did / didn't it fire"); a new trigger, or an existing one edited, with the form of trigger-form.js (every
// kind of event, a timer, conditions, an end), loaded with this screen. Loaded by app.js when first opened.

import { api, element, button, notice, homes, canConfigure, say, label, characteristicIndex } from "./app.js";

const weekdayNames = {
  monday: "Monday", tuesday: "Tuesday", wednesday: "Wednesday", thursday: "Thursday", friday: "Friday",
  saturday: "Saturday", sunday: "Sunday",
};

const list = (items, last = "and") =>
  items.length <= 1 ? items.join("") : `${items.slice(0, -1).join(", ")} ${last} ${items[items.length - 1]}`;

const duration = (seconds) => {
  const parts = [];
  for (const [size, unit] of [[86400, "day"], [3600, "hour"], [60, "minute"], [1, "second"]]) {
    const count = Math.floor(seconds / size);
    if (count) parts.push(`${count} ${unit}${count === 1 ? "" : "s"}`);
    seconds -= count * size;
  }
  return list(parts) || "0 seconds";
};

const timePoint = (point) => {
  const match = /^(sunrise|sunset)(?:([+-])(.+))?$/.exec(point ?? "");
  if (!match) return point;
  if (!match[2]) return match[1];
  const text = match[3].replace(/(\d+)h/, "$1 h ").replace(/(\d+)m/, "$1 min ").replace(/(\d+)s/, "$1 s").trim();
  return `${text} ${match[2] === "-" ? "before" : "after"} ${match[1]}`;
};

const what = (id) => {
  const indexed = characteristicIndex.get(id);
  return indexed ? `${indexed.accessory.name} ${label(indexed.characteristic).toLowerCase()}` : "a characteristic that is gone";
};

const valueOf = (id, value) => {
  const indexed = characteristicIndex.get(id);
  return indexed ? say({ ...indexed.characteristic, value }) : String(value);
};

const userName = (home, id) => (home.users ?? []).find((user) => user.id === id)?.name ?? "someone";

const users = (home, scope) => {
  if (scope === "currentUser") return "its creator";
  if (scope === "everyUser") return "anyone";
  return list((scope ?? []).map((id) => userName(home, id)), "or");
};

const comparisons = { "==": "is", "!=": "is not", "<": "is below", "<=": "is at most", ">": "is above", ">=": "is at least" };

/** A condition in words. */
export const condition = (home, c) => {
  if (c.all) return list(c.all.map((part) => condition(home, part)));
  if (c.any) return `either ${list(c.any.map((part) => condition(home, part)), "or")}`;
  if (c.not) return `not (${condition(home, c.not)})`;
  if (c.time) {
    const { after, before } = c.time;
    if (after && before) return `between ${timePoint(after)} and ${timePoint(before)}`;
    return after ? `after ${timePoint(after)}` : `before ${timePoint(before)}`;
  }
  if (c.characteristic) {
    const { id, comparison, value } = c.characteristic;
    return `${what(id)} ${comparisons[comparison] ?? comparison} ${valueOf(id, value)}`;
  }
  if (c.presence) {
    if (c.presence === "anyone") return "someone is home";
    if (c.presence === "noOne") return "no one is home";
    if (c.presence.userHome) return `${userName(home, c.presence.userHome)} is home`;
    if (c.presence.userAway) return `${userName(home, c.presence.userAway)} is away`;
  }
  if (c.notFiredWithin) return `it has not fired in the last ${duration(c.notFiredWithin.seconds)}`;
  return JSON.stringify(c);
};

const days = (weekdays) => (weekdays?.length ? `on ${list(weekdays.map((day) => weekdayNames[day] ?? day))}` : "every day");

/** An event in words. */
export const event = (home, e) => {
  if (e.characteristic) {
    const { id, value } = e.characteristic;
    return value === undefined ? `${what(id)} changes` : `${what(id)} becomes ${valueOf(id, value)}`;
  }
  if (e.threshold) {
    const { id, min, max } = e.threshold;
    if (min !== undefined && max !== undefined) return `${what(id)} goes between ${valueOf(id, min)} and ${valueOf(id, max)}`;
    return min !== undefined ? `${what(id)} rises to ${valueOf(id, min)} or more` : `${what(id)} falls to ${valueOf(id, max)} or less`;
  }
  if (e.calendar) return `at ${e.calendar.time} ${days(e.calendar.weekdays)}`;
  if (e.significantTime) {
    const { sun, offsetSeconds } = e.significantTime;
    if (!offsetSeconds) return `at ${sun}`;
    return `${duration(Math.abs(offsetSeconds))} ${offsetSeconds < 0 ? "before" : "after"} ${sun}`;
  }
  if (e.presence) {
    const who = users(home, e.presence.users);
    return {
      everyEntry: `${who} arrives home`, everyExit: `${who} leaves home`,
      firstEntry: e.presence.users === "everyUser" ? "the first person arrives home" : `the first of ${who} arrives home`,
      lastExit: e.presence.users === "everyUser" ? "the last person leaves home" : `the last of ${who} leaves home`,
    }[e.presence.change] ?? `${who}: ${e.presence.change}`;
  }
  if (e.location) {
    const { region, transition } = e.location;
    return `${users(home, e.location.users)} ${transition === "entry" ? "enters" : "leaves"} ${region?.name ?? "a region"}`;
  }
  if (e.duration) return `${condition(home, e.duration.condition)} for ${duration(e.duration.seconds)}`;
  return JSON.stringify(e);
};

const timer = (t) => {
  let text = `at ${t.fireDate.replace("T", " ")}`;
  const r = t.recurrence;
  if (r?.every) text += `, then every ${r.every.count === 1 ? "" : `${r.every.count} `}${r.every.unit}${r.every.count === 1 ? "" : "s"}`;
  if (r?.weekdays) text += `, then ${days(r.weekdays)}`;
  if (r?.daysOfMonth) text += `, then on day ${list(r.daysOfMonth.map(String))} of each month`;
  return text;
};

const sceneNames = (home, ids) =>
  list((ids ?? []).map((id) => (home.actionSets ?? []).find((scene) => scene.id === id)?.name ?? "a scene that is gone"));

/** The lines that say what a trigger does. */
export const describe = (home, trigger) => {
  const d = trigger.definition ?? {};
  const lines = [];
  if (d.timer) lines.push(["When", timer(d.timer)]);
  if (d.events?.length) lines.push(["When", list(d.events.map((e) => event(home, e)), "or")]);
  if (d.condition) lines.push(["Only if", condition(home, d.condition)]);
  lines.push(["Then", trigger.actionSetIDs?.length ? `run ${sceneNames(home, trigger.actionSetIDs)}` : "nothing (no scene)"]);
  if (d.end) {
    const when = [d.end.afterSeconds ? `after ${duration(d.end.afterSeconds)}` : null,
      d.end.events?.length ? `when ${list(d.end.events.map((e) => event(home, e)), "or")}` : null].filter(Boolean);
    const then = d.end.actionSetIDs?.length ? `run ${sceneNames(home, d.end.actionSetIDs)}` : "undo its writes";
    lines.push(["Afterwards", `${list(when, "or")}, ${then}`]);
  }
  if (d.executeOnce) lines.push(["Once", "turns itself off after firing"]);
  return lines;
};

const outcomes = { fired: "Fired", skipped: "Did not fire", ended: "Ended" };

const when = (at) => {
  const date = new Date(at);
  return Number.isNaN(date.getTime()) ? at : date.toLocaleString();
};

// A trigger's recent decisions, newest first.
const decisionList = (decisions) => {
  const node = element("ol", undefined, { class: "decisions", "aria-label": "Recent decisions" });
  for (const decision of decisions) {
    const item = element("li", undefined, { class: `decision ${decision.outcome}` });
    const head = element("p");
    head.append(element("strong", outcomes[decision.outcome] ?? decision.outcome, { class: "outcome" }),
      ` ${when(decision.at)}${decision.isCatchUp ? " (late, after a restart)" : ""}: ${decision.cause ?? ""}`);
    item.append(head);
    if (decision.reason) item.append(element("p", `Why not: ${decision.reason}`, { class: "reason" }));
    const checks = element("ul", undefined, { class: "checks" });
    for (const c of decision.conditions ?? []) {
      checks.append(element("li", `${c.holds ? "✓" : "✗"} ${c.condition}${c.observed ? ` (saw ${c.observed})` : ""}`));
    }
    for (const w of decision.writes ?? []) {
      checks.append(element("li", `${w.error ? "✗" : "✓"} ${what(w.characteristicID)} → ${valueOf(w.characteristicID, w.value)}${w.error ? `: ${w.error}` : ""}`));
    }
    if (checks.childElementCount) item.append(checks);
    node.append(item);
  }
  if (!decisions.length) node.append(element("li", "No decisions yet.", { class: "muted" }));
  return node;
};

const forms = new Map(); // homeID -> the new-automation form, kept across redraws while someone fills it in
const editors = new Map(); // triggerID -> its open edit form, kept across redraws until saved or cancelled

/** Draws the Automations screen into `root`; each trigger's decisions come from the hub's explain route. */
export async function draw(root) {
  const { triggerForm } = await import("./trigger-form.js");
  const say_ = { sayCondition: condition, sayEvent: event };
  const parts = [element("h2", "Automations")];
  const pending = [];
  for (const entry of homes.values()) {
    if (!canConfigure(entry)) continue;
    const { home } = entry;
    const section = element("section", undefined, { class: "trigger-home" });
    section.append(element("h3", home.name));
    for (const trigger of home.triggers ?? []) {
      const card = element("article", undefined, { class: "trigger", "data-name": trigger.name, "aria-label": trigger.name });
      const head = element("div", undefined, { class: "room-heading" });
      head.append(element("h4", trigger.name));
      const enabled = element("input", undefined, { type: "checkbox", class: "config", "aria-label": `${trigger.name} is on` });
      enabled.checked = trigger.isEnabled !== false;
      enabled.addEventListener("change", async () => {
        try {
          await api("PATCH", `/v1/homes/${home.id}/triggers/${trigger.id}`, { isEnabled: enabled.checked });
        } catch (error) {
          notice(error.message);
          enabled.checked = !enabled.checked;
        }
      });
      const toggle = element("label", undefined, { class: "muted" });
      toggle.append(enabled, " On");
      head.append(toggle, button("Remove", async () => {
        if (!window.confirm(`Remove the automation ${trigger.name}?`)) return;
        try {
          await api("DELETE", `/v1/homes/${home.id}/triggers/${trigger.id}`);
        } catch (error) {
          notice(error.message);
        }
      }, { class: "config", "aria-label": `Remove ${trigger.name}` }));
      const edit = button("Edit", () => {
        if (editors.has(trigger.id)) return editors.get(trigger.id).querySelector("[name=name]").focus();
        const close = () => {
          editors.get(trigger.id)?.remove();
          editors.delete(trigger.id);
          const shown = document.querySelector(`button.edit-trigger[data-id="${trigger.id}"]`);
          shown?.setAttribute("aria-expanded", "false");
          shown?.focus();
        };
        const form = triggerForm(home, trigger, { ...say_, cancel: close, done: (_, name) => {
          close();
          notice(`${name} saved.`);
        } });
        editors.set(trigger.id, form);
        facts.after(form);
        edit.setAttribute("aria-expanded", "true");
        form.querySelector("[name=name]").focus();
      }, { class: "config edit-trigger", "data-id": trigger.id, "aria-label": `Edit ${trigger.name}`,
        "aria-expanded": "false" });
      head.append(edit);
      card.append(head);
      const facts = element("dl", undefined, { class: "trigger-definition" });
      for (const [term, text] of describe(home, trigger)) facts.append(element("dt", term), element("dd", text));
      if (trigger.note) facts.append(element("dt", "Note"), element("dd", trigger.note));
      card.append(facts);
      const decisions = element("div", undefined, { class: "decision-box" });
      decisions.append(element("h5", "Why did or didn't it fire?"),
        decisionList([...(trigger.state?.decisions ?? [])].reverse()));
      const refresh = async () => {
        try {
          const answer = await api("GET", `/v1/homes/${home.id}/triggers/${trigger.id}/decisions`);
          decisions.replaceChildren(decisions.firstChild, decisionList(answer.decisions ?? []),
            button("Refresh", refresh, { class: "refresh-decisions", "aria-label": `Refresh the decisions of ${trigger.name}` }));
        } catch (error) {
          notice(error.message);
        }
      };
      decisions.append(button("Refresh", refresh, { class: "refresh-decisions", "aria-label": `Refresh the decisions of ${trigger.name}` }));
      pending.push(refresh);
      card.append(decisions);
      if (editors.has(trigger.id)) {
        facts.after(editors.get(trigger.id));
        edit.setAttribute("aria-expanded", "true");
      }
      section.append(card);
    }
    if (!(home.triggers ?? []).length) section.append(element("p", "No automations yet.", { class: "muted" }));
    const kept = forms.get(home.id);
    const fresh = () => triggerForm(home, undefined, { ...say_, done: (form, name) => {
      notice(`${name} added.`);
      const next = fresh();
      forms.set(home.id, next);
      form.replaceWith(next);
    } });
    if (!kept || !(kept.contains(document.activeElement) || kept.dataset.dirty)) forms.set(home.id, fresh());
    section.append(element("h4", "New automation"), forms.get(home.id));
    parts.push(section);
  }
  root.replaceChildren(...parts);
  // Newest decisions from the explain route, one request per trigger, when the screen is drawn.
  await Promise.all(pending.map((refresh) => refresh()));
}
