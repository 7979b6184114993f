/* The lecture's additions to Sphinx's search page (conf.py installs this file as
 * html_search_scorer: Sphinx puts it in language_data.js, after searchtools.js, so `Search`
 * and `Scorer` exist here). conf.py prepends LECTURE_TERM_COUNTS: for each of the lecture's
 * own terms (book/_search/words.txt), how often each page's source uses it.
 */

/* Ranking: Sphinx gives every page that contains a query word the same score (5), and ties
 * go alphabetically by title. For the lecture's terms, rank the page that uses the term most
 * first: up to +4 per term in the query, so a match in a title (15) still comes first. */
Scorer.score = (result) => {
  const [docname, , , , score] = result;
  const query = new URLSearchParams(window.location.search).get("q") || "";
  let boost = 0;
  for (const [term, pages] of Object.entries(LECTURE_TERM_COUNTS)) {
    if (!query.includes(term)) continue;
    const most = Math.max(...Object.values(pages));
    boost += (4 * (pages[docname] || 0)) / most;
  }
  return score + boost;
};

/* Snippets: Sphinx cuts a result's snippet from the page's text, which includes code, doctest
 * prompts (>>>) and the TeX source of the formulas. Cut it from the prose only. */
const _sphinxHtmlToText = Search.htmlToText;
Search.htmlToText = (htmlString, anchor) => {
  const page = new DOMParser().parseFromString(htmlString, "text/html");
  page.querySelectorAll("pre, div.highlight, .cell_input, .math, mjx-container").forEach((el) => el.remove());
  return _sphinxHtmlToText(page.documentElement.outerHTML, anchor);
};
