"""index.html of the report page: a static shell, the page data as one JSON blob, and a small
script (page/page.js) that builds the rows of the page on view. No network: the style and the
script are inlined, images are files beside index.html.

The data blob sits in <script type="application/json">; the HTML parser ends a script element
at the first "</script", whatever the type, so every "<", ">" and "&" in the JSON is written as
its \\u escape (valid JSON, the same string once parsed): question text or a model's answer
holding "</script><script>..." stays text.
"""

from __future__ import annotations

import html
import json
from importlib import resources
from typing import Any


def script_json(data: Any) -> str:
    """JSON safe inside a <script> element: no "<", ">" or "&" (nor U+2028/9) left raw."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    for raw, escaped in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"), ("\u2028", "\\u2028"),
                         ("\u2029", "\\u2029")):
        text = text.replace(raw, escaped)
    return text


def _asset(name: str) -> str:
    return resources.files("adapters.report").joinpath(f"page/{name}").read_text(encoding="utf-8")


def render_page(data: dict) -> str:
    """The whole index.html for `data` (page_data.page_data's dict)."""
    title = html.escape(str(data.get("title", "report")))
    return f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>
{_asset("page.css")}
</style>
</head>
<body>
<header><h1 id="title">{title}</h1><p id="notes"></p></header>
<section id="summary"><div id="plots"></div><div id="table"></div></section>
<section id="filters" aria-label="filters"></section>
<p id="counts"><span id="count-shown" data-count="">?</span> of <span id="count-total"></span> questions shown
<span id="task-counts"></span></p>
<div id="system-counts"></div>
<nav class="pager" id="pager-top"></nav>
<main id="questions"><noscript>This page builds its rows with JavaScript; the same numbers are in the
report's Markdown and CSV files.</noscript></main>
<nav class="pager" id="pager-bottom"></nav>
<div id="viewer" hidden></div>
<div id="page-status" hidden data-ready="0" data-render-ms="" data-requested="0" data-loaded="0" data-failed="0"></div>
<script type="application/json" id="page-data">{script_json(data)}</script>
<script>
{_asset("page.js")}
</script>
</body>
</html>
"""
