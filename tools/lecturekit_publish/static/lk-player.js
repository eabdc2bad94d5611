/* lecturekit's widget player: the notebooks' widgets on a page without a Python kernel.
   Each .lk-player holds its frames in a JSON block (one per setting of the widget's controls,
   pre-rendered at build time by the widget's own code); this script builds the controls
   (range sliders, menus, checkboxes) and shows the frame of the chosen setting.
   Self-contained, no dependencies, nothing fetched but the frames' images. */
(function () {
  "use strict";

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text !== undefined) { node.textContent = text; }
    return node;
  }

  function setup(player, count) {
    var script = player.querySelector("script.lk-data");
    if (!script) { return; }
    var data = JSON.parse(script.textContent);
    var state = data.controls.map(function (c) { return c.initial; });
    var box = player.querySelector(".lk-controls");
    var outputs = player.querySelector(".lk-outputs");

    function show() {
      var frame = data.frames[state.join("-")];
      if (!frame) { return; }
      var shown = outputs.children;
      frame.forEach(function (value, i) {
        var node = shown[i];
        if (!node) { return; }
        if (data.outputs[i] === "image") {
          if (node.getAttribute("src") !== value.src) {
            node.setAttribute("src", value.src);
            node.setAttribute("alt", value.alt);
            node.setAttribute("width", value.w);
            node.setAttribute("height", value.h);
          }
        } else if (data.outputs[i] === "html") {
          node.innerHTML = value;
        } else {
          node.textContent = value;
        }
      });
      player.setAttribute("data-lk-setting", state.join("-"));
    }

    data.controls.forEach(function (c, k) {
      var id = "lk-" + data.name + "-" + c.name + "-" + count;
      var wrap = el("div", { "class": "lk-control" });
      if (c.hidden) { wrap.style.display = "none"; }
      var label = el("label", { "for": id }, c.label);
      wrap.appendChild(label);
      var input;
      if (c.kind === "slider") {
        input = el("input", { type: "range", id: id, min: 0, max: c.labels.length - 1,
                              step: 1, value: c.initial });
        input.setAttribute("aria-valuetext", c.labels[c.initial]);
        var readout = el("output", { "for": id, "class": "lk-readout" }, c.labels[c.initial]);
        input.addEventListener("input", function () {
          state[k] = parseInt(input.value, 10);
          readout.textContent = c.labels[state[k]];
          input.setAttribute("aria-valuetext", c.labels[state[k]]);
          show();
        });
        wrap.appendChild(input);
        wrap.appendChild(readout);
      } else if (c.kind === "checkbox") {
        input = el("input", { type: "checkbox", id: id });
        input.checked = c.labels[c.initial] === "on";
        var on = c.labels.indexOf("on"), off = c.labels.indexOf("off");
        if (on < 0 || off < 0) { input.disabled = true; }
        input.addEventListener("change", function () {
          state[k] = input.checked ? on : off;
          show();
        });
        wrap.insertBefore(input, label);
      } else {
        input = el("select", { id: id });
        c.labels.forEach(function (text, i) {
          var option = el("option", { value: i }, text);
          if (i === c.initial) { option.selected = true; }
          input.appendChild(option);
        });
        input.addEventListener("change", function () {
          state[k] = parseInt(input.value, 10);
          show();
        });
        wrap.appendChild(input);
        if (c.kind === "choice") {
          wrap.appendChild(el("span", { "class": "lk-hint" }, "(prepared inputs)"));
        }
      }
      if (c.labels.length < 2) { input.disabled = true; }
      box.appendChild(wrap);
    });
    player.classList.add("lk-ready");
  }

  function start() {
    var players = document.querySelectorAll(".lk-player");
    for (var i = 0; i < players.length; i++) { setup(players[i], i); }
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
