// A table box draws its horizontal scrollbar whenever its table is wider than it (custom.css). Chromium
// sometimes leaves that scrollbar undrawn when the table grows after the box was first laid out (seen
// under load: a 688 px table in a 676 px box, cut without a bar, until the box is laid out again).
// So whenever a table changes size, its box is laid out again if it hides part of the table.
"use strict";

function drawScrollbarIfCut(box) {
  const cut = box.scrollWidth > box.clientWidth + 1;
  const bar = box.offsetHeight - box.clientHeight;
  if (cut && bar <= 0) {
    box.style.overflowX = "hidden";
    void box.offsetHeight; // lay it out once without scrolling, then again with it
    box.style.overflowX = "";
  }
}

document.addEventListener("DOMContentLoaded", () => {
  const boxes = new ResizeObserver((entries) => {
    for (const entry of entries) drawScrollbarIfCut(entry.target.parentElement);
  });
  for (const table of document.querySelectorAll("div.cell_output div.output > table")) boxes.observe(table);
});
