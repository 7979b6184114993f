// Tables wider than the text column (custom.css).
// 1. On a desktop (the theme's right-hand contents column shown, 1200 px and wider) a table box whose table is wider
//    than the text column is marked .schedlab-wide: custom.css lets it take the contents column's room too, and the
//    contents column folds (the theme's own "hide" class, which it uses for its full-width content) while such a
//    table is in view, so the table never lies over it.
// 2. A table box draws its horizontal scrollbar whenever its table is still wider than it (phones). Chromium
//    sometimes leaves that scrollbar undrawn when the table grows after the box was first laid out (seen under
//    load: a 688 px table in a 676 px box, cut without a bar, until the box is laid out again), so whenever a table
//    changes size, its box is laid out again if it hides part of the table.
"use strict";

function markWide(box) {
  const column = box.parentElement.clientWidth; // the text column: the cell output around the box
  const table = box.firstElementChild.offsetWidth;
  box.style.setProperty("--schedlab-table-width", `${table + 1}px`); // custom.css: a box a wide table's width
  box.classList.toggle("schedlab-wide", table > column + 1);
}

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
  const toc = document.querySelector("div.bd-sidebar-secondary");
  const inView = new Set();
  const folding = new IntersectionObserver(
    (entries) => {
      for (const entry of entries) {
        if (entry.isIntersecting && entry.target.classList.contains("schedlab-wide")) inView.add(entry.target);
        else inView.delete(entry.target);
      }
      if (toc) toc.classList.toggle("hide", inView.size > 0);
    },
    { rootMargin: "0px 0px -33% 0px" }, // the theme's margin for its own full-width content
  );
  const boxes = new ResizeObserver((entries) => {
    for (const entry of entries) {
      const box = entry.target.parentElement;
      markWide(box);
      drawScrollbarIfCut(box);
    }
  });
  for (const table of document.querySelectorAll("div.cell_output div.output > table")) {
    boxes.observe(table);
    folding.observe(table.parentElement);
  }
});
