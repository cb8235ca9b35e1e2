"""Check that the built documentation opens offline: no page or stylesheet of the build loads a
script, style, font, image or math from another host. Links to other sites (``<a href>``)
are fine: they are followed only when a reader clicks them.

    python docs/check_offline.py docs/_build/html

Exits 1 naming each file and what it would load, 0 when everything is local.
"""

from __future__ import annotations

import re
import sys
from html.parser import HTMLParser
from pathlib import Path

REMOTE = re.compile(r"^(https?:)?//", re.I)
CSS_URL = re.compile(r"""(?:url\(\s*['"]?|@import\s+['"])([^'")\s]+)""", re.I)


class _Loads(HTMLParser):
    """What a page loads: scripts, stylesheets and icons, images, media, frames, inline
    styles' URLs."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "link" and a.get("rel", "").lower() not in {"canonical", "next", "prev",
                                                                "search", "index"}:
            self.found.append(a.get("href", ""))
        elif tag in {"script", "img", "iframe", "source", "video", "audio", "embed"}:
            self.found.append(a.get("src", ""))
        self.found += CSS_URL.findall(a.get("style", ""))

    def handle_data(self, data: str) -> None:
        if self.lasttag == "style":
            self.found += CSS_URL.findall(data)


def remote_loads(root: Path) -> list[str]:
    problems = []
    for path in sorted(root.rglob("*")):
        if path.suffix == ".html":
            parser = _Loads()
            parser.feed(path.read_text(errors="replace"))
            loads = parser.found
        elif path.suffix == ".css":
            loads = CSS_URL.findall(path.read_text(errors="replace"))
        else:
            continue
        problems += [f"{path.relative_to(root)}: {url}" for url in loads if REMOTE.match(url)]
    return problems


def main(argv: list[str]) -> int:
    root = Path(argv[1] if len(argv) > 1 else "docs/_build/html")
    if not (root / "index.html").exists():
        print(f"check_offline: no built site in {root} (run make docs)", file=sys.stderr)
        return 1
    problems = remote_loads(root)
    for line in problems:
        print(f"loads from another host: {line}", file=sys.stderr)
    pages = sum(1 for _ in root.rglob("*.html"))
    if not problems:
        print(f"check_offline: {pages} pages, nothing loaded from another host")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
