// On paper a table cannot scroll, so a cell may have to wrap; it should wrap between an estimate and its
// interval ("98% [89, 100]" over two lines: "98%", "[89, 100]"), never inside a number. The renderer
// joins the two with a no-break space (on screen the table's box scrolls and a cell keeps to one line),
// and no CSS rule can open a no-break space. So the one before each interval's "[" becomes a span
// holding a plain space, which custom.css lets wrap only in print.
"use strict";

function openIntervalGaps(cell) {
  const texts = [];
  const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) texts.push(node);
  for (let node of texts) {
    for (let at = node.data.indexOf("\u00a0["); at >= 0; at = node.data.indexOf("\u00a0[")) {
      const gap = node.splitText(at); // "\u00a0[..."
      node = gap.splitText(1); // "[...", searched next
      const span = document.createElement("span");
      span.className = "interval-gap";
      span.textContent = " ";
      gap.replaceWith(span);
    }
  }
}

document.addEventListener("DOMContentLoaded", () => {
  for (const cell of document.querySelectorAll("div.cell_output table td")) openIntervalGaps(cell);
});
