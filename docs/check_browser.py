"""Open the built documentation in a real browser (Chromium, driven by Playwright) and check
what a reader does with it, offline:

- navigation: the home page links every section, and its links open their pages;
- math: MathJax (served from the build) typesets every formula of the metrics page, with no
  error;
- search: the search page finds ``ndcg_at_k`` and ``half-life``, and its results open;
- the report pages show every plot their notebooks hold;
- nothing is requested from another host on any page visited.

    python docs/check_browser.py docs/_build/html

Exits 1 with what failed, 0 when all holds. ``make docs`` runs it after the build. (Seen to
fail on a copy of the build without the search index, without MathJax, or with a plot's image
removed.)
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]


def check(root: Path) -> list[str]:
    from playwright.sync_api import sync_playwright

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        return ["Chromium is not installed (Debian package 'chromium')"]
    problems: list[str] = []
    requests: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.on("request", lambda r: requests.append(r.url))

            # navigation: every toctree entry of the home page opens its page
            page.goto((root / "index.html").as_uri())
            links = page.locator("main .toctree-wrapper a.reference.internal").evaluate_all(
                "links => links.map(a => [a.textContent.trim(), a.href])")
            if len(links) < 15:
                problems.append(f"index.html links {len(links)} pages; expected every section")
            for text, href in links:
                page.goto(href)
                heading = page.locator("main h1").first.text_content() or ""
                if not heading.strip():
                    problems.append(f"the link {text!r} opens a page without a title ({href})")

            # math: every formula of the metrics page typeset, none in error
            page.goto((root / "generated" / "metrics.html").as_uri())
            blocks = page.locator("div.math").count()
            try:
                page.wait_for_function(
                    f"document.querySelectorAll('div.math mjx-container').length >= {blocks}",
                    timeout=30_000)
            except Exception:  # noqa: BLE001 - reported as what failed
                typeset = page.locator("div.math mjx-container").count()
                problems.append(f"metrics.html: MathJax typeset {typeset} of {blocks} formulas")
            errors = page.locator("mjx-merror").count()
            if blocks < 20 or errors:
                problems.append(f"metrics.html: {blocks} formulas, {errors} MathJax errors")

            # search: the index is loaded and the results open
            for query, expect in (("ndcg_at_k", "ndcg_at_k"), ("half-life", "alf")):
                page.goto((root / "search.html").as_uri() + f"?q={query}")
                results = page.locator("#search-results ul.search li a")
                try:
                    results.first.wait_for(timeout=30_000)
                except Exception:  # noqa: BLE001 - reported as what failed
                    problems.append(f"search for {query!r} shows no result")
                    continue
                texts = results.all_text_contents()
                if not any(expect.lower() in t.lower() for t in texts):
                    problems.append(f"search for {query!r}: results {texts[:5]} miss {expect!r}")
                results.first.click()
                page.wait_for_load_state("load")
                if "search.html" in page.url:
                    problems.append(f"search for {query!r}: the first result does not open")

            # the report pages: every plot their notebook holds is shown
            for html in sorted((root / "generated" / "reports").glob("*.html")):
                notebook = json.loads(
                    (root.parents[2] / "notebooks" / f"{html.stem}.ipynb").read_text())
                plots = sum("image/png" in o.get("data", {}) for c in notebook["cells"]
                            for o in c.get("outputs", []))
                page.goto(html.as_uri())
                shown = page.evaluate(
                    "[...document.querySelectorAll('main img')].filter("
                    "i => i.complete && i.naturalWidth > 0).length")
                if shown != plots:
                    problems.append(f"{html.name}: {shown} plots shown of {plots}")
        finally:
            browser.close()
    remote = sorted({u for u in requests if not u.startswith(("file:", "data:", "blob:"))})
    if remote:
        problems.append(f"requests to other hosts: {remote[:5]}")
    return problems


def main(argv: list[str]) -> int:
    root = Path(argv[1] if len(argv) > 1 else "docs/_build/html").resolve()
    problems = check(root)
    for problem in problems:
        print(f"check_browser: {problem}", file=sys.stderr)
    if not problems:
        print("check_browser: navigation, math, search and report plots work offline")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
