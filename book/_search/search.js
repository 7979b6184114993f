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

/* Snippets: Sphinx cuts a result's snippet from the text of the page's [role=main], which with
 * this theme also holds the on-page table of contents and the previous/next links, and includes
 * code, the 显示代码 labels of collapsed code, doctest prompts (>>>) and the TeX source of the
 * formulas. Cut it from the article's prose only, a formula standing as [公式] (as Chinese sites
 * show formulas in plain text). */
const _sphinxHtmlToText = Search.htmlToText;
Search.htmlToText = (htmlString, anchor) => {
  const page = new DOMParser().parseFromString(htmlString, "text/html");
  const main = page.querySelector('[role="main"]');
  const article = page.querySelector('[role="main"] article');
  if (main && article) main.replaceChildren(article);
  page.querySelectorAll("pre, div.highlight, .cell_input, details.above-input").forEach((el) => el.remove());
  page.querySelectorAll(".math").forEach((el) => el.replaceWith(" [公式] "));
  return _sphinxHtmlToText(page.documentElement.outerHTML, anchor);
};
