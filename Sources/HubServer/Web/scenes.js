// The Scenes screen (owners and administrators): each home's scenes with what they set, run, edit and remove
// them, and a new scene made by picking accessories and their target values. Loaded by app.js when first opened.

import {
  api, element, button, notice, homes, canConfigure, short, words, say, label, writable, visibleServices,
  characteristicIndex, runScene, fahrenheit,
} from "./app.js";

let editing = null; // { homeID, sceneID (null: a new scene), form } while a scene is being edited

const settable = (characteristic) =>
  writable(characteristic) && !characteristic.permissions?.includes("hd")
  && !["tlv8", "data"].includes(characteristic.format);

// The accessories of a home that have something a scene can set, with those characteristics.
const candidates = (home) => (home.accessories ?? []).map((accessory) => ({
  accessory,
  characteristics: visibleServices(accessory).flatMap((service) => service.characteristics ?? []).filter(settable),
})).filter((candidate) => candidate.characteristics.length);

const isCelsius = (characteristic) => characteristic.metadata?.unit === "celsius";

// The input for a characteristic's target value, in the home's temperature unit; `read()` gives the API's value.
const valueInput = (homeID, characteristic, value) => {
  const type = short(characteristic.type);
  const choices = characteristic.metadata?.validValues ?? (words[type] ? words[type].map((_, index) => index) : null);
  if (characteristic.format === "bool") {
    const select = element("select", undefined, { class: "action-value", "aria-label": "Value" });
    const [yes, no] = type === "25" ? ["On", "Off"] : ["Yes", "No"];
    select.append(element("option", yes, { value: "true" }), element("option", no, { value: "false" }));
    select.value = value === false ? "false" : "true";
    return { node: select, read: () => select.value === "true" };
  }
  if (choices && ["uint8", "uint16", "uint32", "int"].includes(characteristic.format)) {
    const select = element("select", undefined, { class: "action-value", "aria-label": "Value" });
    for (const choice of choices) select.append(element("option", words[type]?.[choice] ?? String(choice), { value: choice }));
    if (value !== undefined) select.value = String(value);
    return { node: select, read: () => Number(select.value) };
  }
  if (characteristic.format === "string") {
    const input = element("input", undefined, { type: "text", class: "action-value", "aria-label": "Value" });
    input.value = value ?? "";
    return { node: input, read: () => input.value };
  }
  const meta = characteristic.metadata ?? {};
  const toF = isCelsius(characteristic) && fahrenheit(homeID);
  const shown = (celsius) => (celsius === undefined ? undefined : toF ? Math.round((celsius * 9 / 5 + 32) * 10) / 10 : celsius);
  const input = element("input", undefined, {
    type: "number", class: "action-value", "aria-label": `Value${toF ? " in °F" : meta.unit === "celsius" ? " in °C" : ""}`,
    min: shown(meta.minValue), max: shown(meta.maxValue), step: toF ? "0.1" : meta.minStep ?? "any",
  });
  input.value = String(shown(value ?? characteristic.value ?? meta.minValue ?? 0));
  const unit = toF ? "°F" : { celsius: "°C", percentage: "%", arcdegrees: "°", lux: "lx", seconds: "s" }[meta.unit];
  const node = element("span", undefined, { class: "value-with-unit" });
  node.append(input);
  if (unit) node.append(element("span", unit, { class: "muted" }));
  const read = () => {
    const number = Number(input.value);
    return toF ? Math.round(((number - 32) * 5 / 9) * 10) / 10 : number;
  };
  return { node, read };
};

// One action of the editor: accessory, characteristic, value.
const actionRow = (home, action) => {
  const row = element("li", undefined, { class: "action" });
  const list = candidates(home);
  const accessorySelect = element("select", undefined, { class: "action-accessory", "aria-label": "Accessory" });
  for (const { accessory } of list) accessorySelect.append(element("option", accessory.name, { value: accessory.id }));
  const characteristicSelect = element("select", undefined, { class: "action-characteristic", "aria-label": "Setting" });
  const slot = element("span", undefined, { class: "action-slot" });
  let reader = () => undefined;
  const current = () => list.find((candidate) => candidate.accessory.id === accessorySelect.value);
  const fillValue = (value) => {
    const characteristic = current()?.characteristics.find((c) => c.id === characteristicSelect.value);
    if (!characteristic) return;
    const made = valueInput(home.id, characteristic, value);
    reader = made.read;
    slot.replaceChildren(made.node);
  };
  const fillCharacteristics = (selected, value) => {
    characteristicSelect.replaceChildren(...(current()?.characteristics ?? []).map((characteristic) =>
      element("option", label(characteristic), { value: characteristic.id })));
    if (selected) characteristicSelect.value = selected;
    fillValue(value);
  };
  const indexed = action ? characteristicIndex.get(action.characteristicID) : null;
  if (indexed) accessorySelect.value = indexed.accessory.id;
  fillCharacteristics(action?.characteristicID, action?.targetValue);
  accessorySelect.addEventListener("change", () => fillCharacteristics());
  characteristicSelect.addEventListener("change", () => fillValue());
  row.append(accessorySelect, characteristicSelect, slot,
    button("Remove", () => row.remove(), { class: "remove-action", "aria-label": "Remove this accessory" }));
  row.read = () => ({ characteristicID: characteristicSelect.value, targetValue: reader() });
  return row;
};

const editor = (home, scene) => {
  const form = element("form", undefined, { class: "config scene-editor", "aria-label": scene ? `Edit ${scene.name}` : "New scene" });
  const name = element("input", undefined, {
    name: "name", required: true, maxlength: "64", "aria-label": "Scene name", placeholder: "Scene name",
  });
  name.value = scene?.name ?? "";
  const actions = element("ol", undefined, { class: "actions" });
  for (const action of scene?.actions ?? []) actions.append(actionRow(home, action));
  if (!scene) actions.append(actionRow(home));
  form.append(
    name, actions,
    button("Add an accessory", () => actions.append(actionRow(home)), { class: "add-action" }),
    element("button", "Save", { type: "submit" }),
    button("Cancel", () => {
      editing = null;
      draw(form.closest("#scenes"));
    }),
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const body = { name: name.value, actions: [...actions.children].map((row) => row.read()) };
    try {
      if (scene) await api("PATCH", `/v1/homes/${home.id}/actionSets/${scene.id}`, body);
      else await api("POST", `/v1/homes/${home.id}/actionSets`, body);
      notice(`${body.name} saved.`);
      const root = form.closest("#scenes");
      editing = null;
      draw(root);
    } catch (error) {
      notice(error.message);
    }
  });
  return form;
};

// What a scene sets, in words.
const describe = (scene) => (scene.actions ?? []).map((action) => {
  const indexed = characteristicIndex.get(action.characteristicID);
  if (!indexed) return "an accessory that is gone";
  return `${indexed.accessory.name} ${label(indexed.characteristic)}: ${say({ ...indexed.characteristic, value: action.targetValue })}`;
}).join("; ") || "Nothing yet";

/** Draws the Scenes screen into `root`, keeping a scene being edited. */
export function draw(root) {
  const parts = [element("h2", "Scenes")];
  for (const entry of homes.values()) {
    if (!canConfigure(entry)) continue;
    const { home } = entry;
    const section = element("section", undefined, { class: "scene-home" });
    section.append(element("h3", home.name));
    const list = element("ul", undefined, { class: "scene-list" });
    for (const scene of home.actionSets ?? []) {
      const item = element("li", undefined, { class: "scene-item", "data-name": scene.name });
      item.append(element("strong", scene.name), element("p", describe(scene), { class: "muted scene-actions" }));
      const tools = element("div", undefined, { class: "controls" });
      tools.append(
        button("Run", () => runScene(home.id, scene), { class: "run-scene", "aria-label": `Run ${scene.name}` }),
        button("Edit", () => {
          editing = { homeID: home.id, sceneID: scene.id, form: editor(home, scene) };
          draw(root);
        }, { class: "config edit-scene", "aria-label": `Edit ${scene.name}` }),
      );
      if (scene.kind === "userDefined" || !scene.kind) {
        tools.append(button("Remove", async () => {
          if (!window.confirm(`Remove the scene ${scene.name}?`)) return;
          try {
            await api("DELETE", `/v1/homes/${home.id}/actionSets/${scene.id}`);
          } catch (error) {
            notice(error.message);
          }
        }, { class: "config", "aria-label": `Remove ${scene.name}` }));
      }
      item.append(tools);
      if (editing?.homeID === home.id && editing.sceneID === scene.id) item.append(editing.form);
      list.append(item);
    }
    section.append(list);
    if (editing?.homeID === home.id && editing.sceneID === null) section.append(editing.form);
    else {
      section.append(button("New scene", () => {
        editing = { homeID: home.id, sceneID: null, form: editor(home, null) };
        draw(root);
      }, { class: "config new-scene" }));
    }
    parts.push(section);
  }
  root.replaceChildren(...parts);
}
