// The People view (owners and administrators), loaded when first shown: each home's users with their roles, removing
// them, and invites with the code's QR code.

import { api, element, button, notice, homes, canConfigure } from "./core.js";

// Draws the People view into `root`, for the homes the person may configure.
export const draw = async (root) => {
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
