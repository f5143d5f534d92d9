// The "Add accessory" view (owners and administrators): the accessories the hub finds nearby, kept up to date by
// the event WebSocket's `found` and `removed` messages (pushed by the hub's browser, never polled), and a form that
// pairs the chosen one with its setup code (typed, or read from its label's QR code: a photo, or the camera where
// the page may use one; the browser's `BarcodeDetector` where it has one, else qr.js) into a room under a name.

// HAP accessory categories (the advertisement's `ci`) as people say them.
const categories = {
  1: "Other", 2: "Bridge", 3: "Fan", 4: "Garage door opener", 5: "Lightbulb", 6: "Door lock", 7: "Outlet",
  8: "Switch", 9: "Thermostat", 10: "Sensor", 11: "Security system", 12: "Door", 13: "Window",
  14: "Window covering", 15: "Programmable switch", 16: "Range extender", 17: "Camera", 18: "Video doorbell",
  19: "Air purifier", 20: "Heater", 21: "Air conditioner", 22: "Humidifier", 23: "Dehumidifier", 28: "Sprinkler",
  29: "Faucet", 30: "Shower", 31: "Television", 32: "Remote",
};
const categoryName = (number) => categories[number] ?? "Accessory";

// A setup code as the hub takes it (XXX-XX-XXX) from "XXX-XX-XXX", 8 digits, or an accessory label's QR payload
// (X-HM://: 9 base-36 characters whose low 27 bits are the code, then the setup ID); `null` when none of those.
export const setupCodeFrom = (text) => {
  const trimmed = String(text ?? "").trim();
  let digits = null;
  const payload = /^X-HM:\/\/([0-9A-Z]{9})[0-9A-Z]{4}$/i.exec(trimmed);
  if (payload) {
    let value = 0n;
    for (const character of payload[1].toUpperCase()) value = value * 36n + BigInt(parseInt(character, 36));
    digits = String(value & 0x7ffffffn).padStart(8, "0");
  } else if (/^\d{3}-\d{2}-\d{3}$/.test(trimmed) || /^\d{8}$/.test(trimmed)) {
    digits = trimmed.replace(/-/g, "");
  }
  return digits ? `${digits.slice(0, 3)}-${digits.slice(3, 5)}-${digits.slice(5)}` : null;
};

// The advertised name without the device ID's end that accessories add to it ("Porch Lamp 3A4F" -> "Porch Lamp").
const suggestedName = (name) => name.replace(/\s+[0-9A-F]{4,6}$/, "");

// A function from an image (`ImageBitmap` or a playing `<video>`) to the texts of the QR codes in it: the browser's
// `BarcodeDetector` where it has one that reads QR codes, else qr.js on the image's pixels (drawn at most 1024
// pixels wide).
let reader = null;
const qrReader = () => {
  reader ??= (async () => {
    const formats = await window.BarcodeDetector?.getSupportedFormats?.().catch(() => []);
    if (formats?.includes("qr_code")) {
      const detector = new window.BarcodeDetector({ formats: ["qr_code"] });
      return async (source) => (await detector.detect(source)).map((found) => found.rawValue);
    }
    const { readQRCode } = await import("./qr.js");
    const canvas = document.createElement("canvas");
    return async (source) => {
      const width = source.videoWidth ?? source.width;
      const height = source.videoHeight ?? source.height;
      if (!width || !height) return [];
      const scale = Math.min(1, 1024 / Math.max(width, height));
      canvas.width = Math.round(width * scale);
      canvas.height = Math.round(height * scale);
      const context = canvas.getContext("2d", { willReadFrequently: true });
      context.drawImage(source, 0, 0, canvas.width, canvas.height);
      const text = readQRCode(context.getImageData(0, 0, canvas.width, canvas.height));
      return text === null ? [] : [text];
    };
  })();
  reader.catch(() => {
    reader = null;
  });
  return reader;
};

// Starts the view's part of the page (its tab joins #views, whose click handler app.js adds); `context` holds
// app.js's helpers and state.
export const startPairing = (context) => {
  const { api, element, button, homes, canConfigure, showView } = context;
  const nearby = new Map(); // deviceID -> { deviceID, name, category, isPairable }
  let chosen = null; // the deviceID whose form is open
  let scanning = null; // the camera stream while scanning
  let submitting = false; // while the hub pairs the chosen one (its advertisement changes meanwhile)

  const tab = element("button", "Add accessory", {
    type: "button", "data-view": "add", "aria-pressed": "false", id: "add-tab", hidden: true,
  });
  document.getElementById("views").append(tab);
  const root = element("div", undefined, { id: "add", hidden: true });
  document.querySelector("main").append(root);
  const list = element("ul", undefined, { id: "nearby", class: "nearby", "aria-live": "polite", "aria-label": "Nearby" });
  const form = element("form", undefined, { id: "pair", class: "pair", "aria-label": "Pair", hidden: true });
  root.append(
    element("h2", "Add accessory"),
    element("p", "Accessories near the hub that are not paired yet appear here as the hub finds them.", { class: "muted" }),
    list,
    form
  );

  const configurable = () => [...homes.values()].filter(canConfigure);

  const drawList = () => {
    const items = [...nearby.values()].filter((accessory) => accessory.isPairable)
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((accessory) => {
        const item = element("li", undefined, { "data-device-id": accessory.deviceID });
        item.append(button(accessory.name, () => choose(accessory.deviceID), {
          class: "nearby-accessory", "aria-pressed": chosen === accessory.deviceID ? "true" : "false",
          "aria-label": `${accessory.name}, ${categoryName(accessory.category)}`,
        }), " ", element("span", categoryName(accessory.category), { class: "category muted" }));
        return item;
      });
    list.replaceChildren(...(items.length ? items : [element("li", "Looking for accessories nearby…", { class: "empty" })]));
    if (chosen && !submitting && !nearby.get(chosen)?.isPairable) closeForm("That accessory is no longer nearby.");
  };

  const stopScanning = () => {
    for (const track of scanning?.getTracks() ?? []) track.stop();
    scanning = null;
  };

  const closeForm = (message) => {
    stopScanning();
    chosen = null;
    form.hidden = true;
    form.replaceChildren();
    if (message) list.before(element("p", message, { class: "warn pair-gone", role: "status" }));
  };

  // The setup-code field's QR controls: a photo of the label, or the camera where the browser has one. The browser's
  // `BarcodeDetector` reads the code where it exists, else qr.js (imported the first time it is needed).
  const scanControls = (input, status) => {
    const take = (texts) => {
      const code = texts.map(setupCodeFrom).find(Boolean);
      if (code) {
        input.value = code;
        status.textContent = "Setup code read from the QR code.";
      }
      return code ? "read" : texts.length ? "other" : "none";
    };
    const video = element("video", undefined, { class: "scan", muted: true, playsinline: true, hidden: true });
    const scanners = [];
    if (navigator.mediaDevices?.getUserMedia) {
      scanners.push(button("Scan with the camera", async () => {
        status.textContent = "";
        try {
          const read = await qrReader();
          scanning = await navigator.mediaDevices.getUserMedia({ video: { facingMode: "environment" } });
          video.srcObject = scanning;
          video.hidden = false;
          await video.play();
          const started = Date.now();
          let seen = "none";
          while (scanning && Date.now() - started < 60000) {
            seen = take(await read(video));
            if (seen === "read") break;
            await new Promise((resolve) => setTimeout(resolve, 250));
          }
          if (seen === "other") status.textContent = "This QR code is not a HomeKit setup code.";
          else if (seen === "none" && scanning) status.textContent = "No QR code was seen in a minute; type the code.";
        } catch (error) {
          status.textContent = `The camera could not be used (${error.message}); type the code instead.`;
        }
        stopScanning();
        video.hidden = true;
      }, { class: "scan-camera" }));
    }
    const file = element("input", undefined, { type: "file", accept: "image/*", id: "setup-photo" });
    file.addEventListener("change", async () => {
      const picked = file.files?.[0];
      if (!picked) return;
      status.textContent = "Reading the QR code…";
      let image = null;
      try {
        image = await createImageBitmap(picked);
      } catch {
        status.textContent = "That file is not an image this browser can open.";
        return;
      }
      try {
        const seen = take(await (await qrReader())(image));
        if (seen === "none") status.textContent = "No QR code found in this image.";
        else if (seen === "other") status.textContent = "This QR code is not a HomeKit setup code.";
      } catch (error) {
        status.textContent = `The image could not be read (${error.message}).`;
      } finally {
        image.close();
        file.value = "";
      }
    });
    return [
      ...scanners,
      element("label", scanners.length ? "or read it from a photo of the label" : "Read it from a photo of the label", {
        for: "setup-photo",
      }),
      file,
      video,
    ];
  };

  const choose = (deviceID) => {
    const accessory = nearby.get(deviceID);
    const targets = configurable();
    if (!accessory || !targets.length) return;
    stopScanning();
    chosen = deviceID;
    for (const old of root.querySelectorAll(".pair-gone")) old.remove();
    const homeSelect = element("select", undefined, { name: "home", "aria-label": "Home" });
    for (const entry of targets) homeSelect.append(element("option", entry.home.name, { value: entry.home.id }));
    const roomSelect = element("select", undefined, { name: "room", id: "pair-room", "aria-label": "Room" });
    const fillRooms = () => {
      const home = homes.get(homeSelect.value)?.home;
      roomSelect.replaceChildren(...[...(home?.rooms ?? []), home?.roomForEntireHome].filter(Boolean)
        .map((room) => element("option", room.name, { value: room.id })));
    };
    homeSelect.addEventListener("change", fillRooms);
    fillRooms();
    const code = element("input", undefined, {
      name: "setupCode", id: "setup-code", required: true, inputmode: "numeric", autocomplete: "off",
      placeholder: "123-45-678", pattern: "\\d{3}-\\d{2}-\\d{3}|\\d{8}", maxlength: "10",
      "aria-describedby": "setup-code-help",
    });
    const name = element("input", undefined, {
      name: "name", id: "pair-name", required: true, maxlength: "64", value: suggestedName(accessory.name),
    });
    const status = element("p", undefined, { class: "muted", role: "status" });
    const error = element("p", undefined, { id: "pair-error", class: "warn", role: "alert" });
    const submit = element("button", "Add", { type: "submit" });
    const field = (text, input) => {
      const wrapper = element("div", undefined, { class: "field" });
      wrapper.append(element("label", text, { for: input.id || undefined }), input);
      return wrapper;
    };
    form.replaceChildren(
      element("h3", `Add ${accessory.name}`),
      element("p", categoryName(accessory.category), { class: "muted" }),
      field("Setup code", code),
      element("p", "The 8 digits on the accessory or its box, with or without dashes.", {
        id: "setup-code-help", class: "muted",
      }),
      ...scanControls(code, status),
      status,
      ...(targets.length > 1 ? [field("Home", homeSelect)] : []),
      field("Room", roomSelect),
      field("Name", name),
      submit,
      button("Cancel", () => {
        closeForm();
        drawList();
      }),
      error
    );
    form.hidden = false;
    drawList();
    code.focus();
  };

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const error = form.querySelector("#pair-error");
    const setupCode = setupCodeFrom(form.elements.setupCode.value);
    if (!setupCode) {
      error.textContent = "The setup code must be 8 digits, like 123-45-678.";
      return;
    }
    const homeID = form.elements.home?.value ?? configurable()[0]?.home.id;
    const submit = form.querySelector("button[type=submit]");
    submit.disabled = true;
    submitting = true;
    error.textContent = "";
    form.setAttribute("aria-busy", "true");
    try {
      const answer = await api("POST", `/v1/homes/${homeID}/accessories`, {
        deviceID: chosen, setupCode, roomID: form.elements.room.value, name: form.elements.name.value,
      });
      const added = answer?.accessories ?? [];
      const names = added.map((accessory) => accessory.name);
      closeForm();
      drawList();
      context.notice(`Added ${names.join(", ") || "the accessory"}.`);
      showView("home");
    } catch (failure) {
      error.textContent = failure.message;
    } finally {
      submitting = false;
      submit.disabled = false;
      form.removeAttribute("aria-busy");
    }
  });

  return {
    // The view is shown (or hidden): fetch what is nearby now, once; `found` and `removed` keep it up to date.
    async show(visible) {
      root.hidden = !visible;
      if (!visible) {
        stopScanning();
        return;
      }
      const target = configurable()[0];
      if (!target) return;
      try {
        const answer = await api("GET", `/v1/homes/${target.home.id}/accessories/nearby`);
        const seen = new Set();
        for (const accessory of answer.accessories ?? []) {
          seen.add(accessory.deviceID);
          nearby.set(accessory.deviceID, accessory);
        }
        for (const deviceID of [...nearby.keys()]) if (!seen.has(deviceID)) nearby.delete(deviceID);
      } catch (error) {
        context.notice(error.message);
      }
      drawList();
    },
    // The homes were drawn again: the tab is for owners and administrators only.
    homesChanged() {
      const allowed = configurable().length > 0;
      tab.hidden = !allowed;
      if (!allowed) {
        nearby.clear();
        closeForm();
        if (!root.hidden) showView("home");
      }
    },
    // A `found` or `removed` message of the event WebSocket.
    message(message) {
      if (message.found) nearby.set(message.found.deviceID, message.found);
      else if (message.removed) nearby.delete(message.removed.deviceID);
      if (!root.hidden) drawList();
    },
  };
};
