// cmpc report page: hover text on plotted points, legend entries that hide a series.
// Part of cmpc (Apache-2.0); hand-written, no dependencies, no network, nothing random.
(function () {
  "use strict";
  var tip = document.getElementById("cmpc-tooltip");

  function show(event) {
    var lines = (event.currentTarget.getAttribute("data-tip") || "").split("\n");
    while (tip.firstChild) tip.removeChild(tip.firstChild);
    lines.forEach(function (line) {
      var row = document.createElement("div");
      row.textContent = line;  // text, never markup: spec names stay inert
      tip.appendChild(row);
    });
    tip.hidden = false;
    move(event);
  }

  function move(event) {
    var x = event.clientX + 14, y = event.clientY + 14;
    var room = document.documentElement.clientWidth - tip.offsetWidth - 8;
    tip.style.left = Math.max(4, Math.min(x, room)) + "px";
    tip.style.top = y + "px";
  }

  function hide() { tip.hidden = true; }

  function toggle(entry) {
    var svg = entry.ownerSVGElement;
    var series = entry.getAttribute("data-series");
    var off = entry.getAttribute("aria-pressed") !== "true";
    entry.setAttribute("aria-pressed", off ? "true" : "false");
    entry.classList.toggle("cmpc-off", off);
    svg.querySelectorAll('.cmpc-series[data-series="' + series + '"]').forEach(function (g) {
      g.classList.toggle("cmpc-hidden", off);
    });
    // every entry of the same series (a system can have several) follows
    svg.querySelectorAll('.cmpc-legend[data-series="' + series + '"]').forEach(function (e) {
      e.setAttribute("aria-pressed", off ? "true" : "false");
      e.classList.toggle("cmpc-off", off);
    });
  }

  document.querySelectorAll(".cmpc-point").forEach(function (point) {
    point.addEventListener("mouseenter", show);
    point.addEventListener("mousemove", move);
    point.addEventListener("mouseleave", hide);
    var title = point.querySelector("title");
    if (title) point.removeChild(title);  // the page's tooltip replaces the browser's
  });

  document.querySelectorAll(".cmpc-legend").forEach(function (entry) {
    entry.setAttribute("role", "button");
    entry.setAttribute("tabindex", "0");
    entry.setAttribute("aria-pressed", "false");
    entry.addEventListener("click", function () { toggle(entry); });
    entry.addEventListener("keydown", function (event) {
      if (event.key === "Enter" || event.key === " ") {
        event.preventDefault();
        toggle(entry);
      }
    });
  });
})();
