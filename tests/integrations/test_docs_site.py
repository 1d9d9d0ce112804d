"""The documentation site builds with ``mkdocs build --strict``: a broken link or anchor fails the suite.

The README sits outside the site (GitHub shows it), so its relative links are checked here
against the files they name.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LINK = re.compile(r"\]\(([^)\s]+)\)")


def test_the_docs_site_builds_without_a_warning(tmp_path):
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-4000:]
    assert "WARNING" not in result.stderr
    site = tmp_path / "site"
    page = (site / "concepts" / "recall.html").read_text()
    assert "Reciprocal rank fusion" in page or "reciprocal rank fusion" in page
    assert (site / "screenshots" / "overview.png").stat().st_size > 1000
    # Offline: no web fonts or assets from another host on any page.
    for html in site.rglob("*.html"):
        text = html.read_text()
        assert "fonts.googleapis.com" not in text and "fonts.gstatic.com" not in text, html.name
        assert not re.search(r'<(?:script|link)[^>]+(?:src|href)="https?://', text), html.name


def test_every_relative_link_in_the_readme_names_a_file():
    links = [target for target in LINK.findall((ROOT / "README.md").read_text()) if "://" not in target]
    assert len(links) >= 10
    for target in links:
        path = target.split("#", 1)[0]
        if not path:
            continue  # an anchor in the README itself
        assert (ROOT / path).is_file(), f"README.md links to {target}, which does not exist"
