// The History view, loaded when first shown: each home's recent changes in words, who made them and when.

import { api, element, notice, homes, characteristicIndex, short, T, label, say } from "./core.js";

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

// Draws the History view into `root`: each home's last 200 changes, filtered by room or accessory.
export const draw = async (root) => {
  const parts = [element("h2", "History")];
  for (const entry of homes.values()) {
    const { home } = entry;
    let events = [];
    try {
      // The newest kept changes, whatever their numbers (a hub that stopped uncleanly skips some).
      events = (await api("GET", `/v1/homes/${home.id}/changes?last=200`)).events ?? [];
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
