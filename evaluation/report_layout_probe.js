// What tests/agent/report/test_html_layout.py and evaluation/report_screenshots.py check of report.html:
// probe(win, doc) -> {width, height, problems}, run from a wrapper page on the report's frame.
function probe(win, doc) {
  function inScroller(el) {
    for (let up = el.parentElement; up; up = up.parentElement) {
      const overflow = win.getComputedStyle(up).overflowX;
      if (overflow === "auto" || overflow === "scroll") return true;
    }
    return false;
  }
  // inside a closed <details> but not its summary: not shown (Chromium still lays it out)
  function folded(el) {
    const shut = el.closest("details:not([open])");
    const summary = shut && shut.querySelector(":scope > summary");
    return shut !== null && !(summary && summary.contains(el));
  }
  function named(el) {
    const cls = typeof el.className === "string" && el.className.trim() ? "." + el.className.trim().split(/\s+/).join(".") : "";
    return el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") + cls;
  }
  function check(state) {
    const found = [], width = win.innerWidth, page = doc.documentElement;
    if (page.scrollWidth > width) found.push(state + ": the page is " + page.scrollWidth + " px wide in a " + width + " px window");
    for (const el of doc.body.querySelectorAll("*")) {
      const box = el.getBoundingClientRect();
      if ((box.width === 0 && box.height === 0) || folded(el)) continue;
      if ((box.right > width + 0.5 || box.left < -0.5) && !inScroller(el))
        found.push(state + ": " + named(el) + " spans " + box.left.toFixed(1) + " to " + box.right.toFixed(1) + " px of " + width);
      const style = win.getComputedStyle(el);
      if (style.display === "inline-block" && style.overflowX === "visible" && el.scrollWidth > el.clientWidth + 1)
        found.push(state + ": the text of " + named(el) + " (" + el.textContent.slice(0, 40) + ") spills out of its " + el.clientWidth + " px box");
    }
    for (const svg of doc.querySelectorAll("svg")) {
      const outer = svg.getBoundingClientRect(), view = svg.viewBox.baseVal;
      if (outer.width === 0 || folded(svg)) continue;
      for (const text of svg.querySelectorAll("text")) {
        const own = text.getBBox(), drawn = text.getBoundingClientRect(), what = state + ': "' + text.textContent + '"';
        if (view && view.width && (own.x < view.x - 0.5 || own.x + own.width > view.x + view.width + 0.5 ||
            own.y < view.y - 0.5 || own.y + own.height > view.y + view.height + 0.5))
          found.push(what + " lies outside its SVG's viewBox");
        if (drawn.left < outer.left - 0.5 || drawn.right > outer.right + 0.5 || drawn.top < outer.top - 0.5 || drawn.bottom > outer.bottom + 0.5)
          found.push(what + " is drawn outside its SVG");
        if (drawn.height < 8) found.push(what + " is drawn " + drawn.height.toFixed(1) + " px high");
      }
    }
    return found;
  }
  const height = Math.ceil(doc.documentElement.getBoundingClientRect().height);
  const problems = check("as laid out");
  doc.querySelectorAll("details").forEach(function (d) { d.open = true; });
  problems.push.apply(problems, check("details opened"));
  return {width: win.innerWidth, height: height, problems: problems};
}
