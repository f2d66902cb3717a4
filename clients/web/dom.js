// dom.js — the few helpers the page builds its panel with: find an element, make one, and the
// panel's controls (a segmented choice, a slider, a checkbox, key hints), and a download.
// Each control calls back with its value; what the page does after (redraw its panel) is the
// caller's.

export const $ = (id) => document.getElementById(id);

/* An element: props are attributes, properties (non-string values of a known property) or
 * listeners (on…); kids are appended, null and undefined skipped. */
export const el = (tag, props = {}, ...kids) => {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(props)) {
        if (k === "class") e.className = v;
        else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
        else if (k in e && typeof v !== "string") e[k] = v;
        else e.setAttribute(k, v);
    }
    for (const c of kids) if (c !== null && c !== undefined) e.append(c);
    return e;
};

/* One of items ([value, text] pairs), the current one pressed; pick(value) on a press. */
export const seg = (label, items, current, pick) => el("div", { class: "group" },
    label ? el("div", { class: "label" }, label) : null,
    el("div", { class: "seg" }, ...items.map(([value, text]) =>
        el("button", { type: "button", "aria-pressed": String(value === current), onclick: () => pick(value) }, text))));

/* A range with its value shown; input(v) while it moves, change(v) when it is let go. */
export const slider = (label, { min, max, step = 1, value, show = (v) => String(v), input, change }) => {
    const out = el("output", {}, show(value));
    const r = el("input", { type: "range", min: String(min), max: String(max), step: String(step), value: String(value), class: "grow" });
    r.addEventListener("input", () => { out.textContent = show(+r.value); input?.(+r.value); });
    r.addEventListener("change", () => change?.(+r.value));
    return el("div", { class: "group" }, el("div", { class: "label" }, label), el("div", { class: "row" }, r, out));
};

export const check = (text, on, toggle) => {
    const box = el("input", { type: "checkbox" });
    box.checked = on;
    box.addEventListener("change", () => toggle(box.checked));
    return el("label", { class: "check" }, box, text);
};

/* Key hints: keys(["space", "pause"], ["[ ]", "speed"]). */
export const keys = (...parts) => el("span", { class: "keys" }, ...parts.flatMap(([k, t]) => [el("kbd", {}, k), ` ${t}  `]));

/* The bytes as a file the browser saves under name. */
export function download(bytes, type, name) {
    const a = el("a", { href: URL.createObjectURL(new Blob([bytes], { type })), download: name });
    a.click();
    setTimeout(() => URL.revokeObjectURL(a.href), 60000);
}
