// The Homes, zones & groups screen (owners and administrators): new homes; each home renamed (and removed by its
// owner); its zones with their rooms, and its service groups with their services, made, renamed, changed and
// removed here. Loaded by app.js when first opened.

import { api, element, button, notice, homes, canConfigure, visibleServices, startLive } from "./app.js";

// Calls the hub; whether it went through (a refusal's sentence goes to the notice line).
const call = async (method, path, body) => {
  try {
    await api(method, path, body);
    notice("");
    return true;
  } catch (error) {
    notice(error.message);
    return false;
  }
};

const rename = (path, what, current) => {
  const name = window.prompt(`New name for ${what}`, current);
  if (name && name !== current) call("PATCH", path, { name });
};

// A form with one name field and a button.
const nameForm = (className, label, buttonText, onSubmit) => {
  const form = element("form", undefined, { class: `config ${className}`, "aria-label": label });
  const input = element("input", undefined, { name: "name", required: true, maxlength: "64", "aria-label": label, placeholder: label });
  form.append(input, element("button", buttonText, { type: "submit" }));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    await onSubmit(input.value);
    input.value = "";
  });
  return form;
};

const zones = (home) => {
  const section = element("section", undefined, { class: "zones", "aria-label": `Zones of ${home.name}` });
  section.append(element("h4", "Zones"));
  const rooms = home.rooms ?? [];
  for (const zone of home.zones ?? []) {
    const group = element("fieldset", undefined, { class: "zone-item", "data-name": zone.name });
    group.append(element("legend", zone.name));
    for (const room of rooms) {
      const box = element("input", undefined, { type: "checkbox", id: `zone-${zone.id}-${room.id}` });
      box.checked = zone.roomIDs?.includes(room.id) ?? false;
      box.addEventListener("change", () =>
        call(box.checked ? "PUT" : "DELETE", `/v1/homes/${home.id}/zones/${zone.id}/rooms/${room.id}`));
      group.append(element("span", undefined, { class: "check" }));
      group.lastChild.append(box, element("label", room.name, { for: box.id }));
    }
    group.append(
      button("Rename", () => rename(`/v1/homes/${home.id}/zones/${zone.id}`, zone.name, zone.name), { "aria-label": `Rename ${zone.name}` }),
      button("Remove", () => {
        if (window.confirm(`Remove the zone ${zone.name}? Its rooms stay.`)) call("DELETE", `/v1/homes/${home.id}/zones/${zone.id}`);
      }, { "aria-label": `Remove ${zone.name}` }),
    );
    section.append(group);
  }
  section.append(nameForm("new-zone", "New zone", "Add zone", (name) => call("POST", `/v1/homes/${home.id}/zones`, { name })));
  return section;
};

// Every service people see, with its accessory's name.
const services = (home) => (home.accessories ?? []).flatMap((accessory) =>
  visibleServices(accessory).map((service) => ({ service, name: `${accessory.name}: ${service.name ?? "Service"}` })));

const groups = (home) => {
  const section = element("section", undefined, { class: "service-groups", "aria-label": `Service groups of ${home.name}` });
  section.append(element("h4", "Service groups"));
  const all = services(home);
  for (const group of home.serviceGroups ?? []) {
    const box = element("fieldset", undefined, { class: "group-item", "data-name": group.name });
    box.append(element("legend", group.name));
    const members = element("ul");
    for (const id of group.serviceIDs ?? []) {
      const found = all.find((candidate) => candidate.service.id === id);
      const item = element("li", found?.name ?? "A service that is gone");
      item.append(" ", button("Take out", () => call("DELETE", `/v1/homes/${home.id}/serviceGroups/${group.id}/services/${id}`),
        { "aria-label": `Take ${found?.name ?? "the service"} out of ${group.name}` }));
      members.append(item);
    }
    if (!members.childElementCount) members.append(element("li", "No services yet.", { class: "muted" }));
    const pick = element("select", undefined, { "aria-label": `A service to add to ${group.name}` });
    for (const { service, name } of all) {
      if (!group.serviceIDs?.includes(service.id)) pick.append(element("option", name, { value: service.id }));
    }
    box.append(members, pick,
      button("Add", () => pick.value && call("PUT", `/v1/homes/${home.id}/serviceGroups/${group.id}/services/${pick.value}`),
        { "aria-label": `Add the service to ${group.name}` }),
      button("Rename", () => rename(`/v1/homes/${home.id}/serviceGroups/${group.id}`, group.name, group.name),
        { "aria-label": `Rename ${group.name}` }),
      button("Remove", () => {
        if (window.confirm(`Remove the group ${group.name}? Its services stay.`)) {
          call("DELETE", `/v1/homes/${home.id}/serviceGroups/${group.id}`);
        }
      }, { "aria-label": `Remove ${group.name}` }));
    section.append(box);
  }
  section.append(nameForm("new-group", "New service group", "Add group",
    (name) => call("POST", `/v1/homes/${home.id}/serviceGroups`, { name })));
  return section;
};

// A home's name with Rename and, for its owner, Remove (which takes everything in it, so it asks first).
const homeControls = (entry) => {
  const { home } = entry;
  const row = element("p", undefined, { class: "home-item", "data-name": home.name });
  row.append(button("Rename home", () => rename(`/v1/homes/${home.id}`, home.name, home.name),
    { class: "rename-home", "aria-label": `Rename the home ${home.name}` }));
  if (entry.role === "owner") {
    row.append(" ", button("Remove home", async () => {
      const question = `Remove the home ${home.name} with its rooms, accessories, scenes and automations? `
        + "This cannot be undone.";
      // The event connection starts again, so the page draws the homes that are left.
      if (window.confirm(question) && await call("DELETE", `/v1/homes/${home.id}`)) startLive();
    }, { class: "remove-home", "aria-label": `Remove the home ${home.name}` }));
  }
  return row;
};

/** Draws the Homes, zones & groups screen into `root`. */
export function draw(root) {
  const parts = [element("h2", "Homes, zones & groups")];
  // A new home is the caller's; the event connection starts again so the page follows it too.
  parts.push(nameForm("new-home", "New home", "Add home", async (name) => {
    if (await call("POST", "/v1/homes", { name })) startLive();
  }));
  for (const entry of homes.values()) {
    if (!canConfigure(entry)) continue;
    const section = element("section", undefined, { class: "group-home", "data-name": entry.home.name });
    section.append(element("h3", entry.home.name), homeControls(entry), zones(entry.home), groups(entry.home));
    parts.push(section);
  }
  root.replaceChildren(...parts);
}
