"""The comparison page in a real browser: headless Chromium opens index.html from disk with its
filters in the URL hash, and the DOM it dumps says how many questions each filter leaves, that
every image loaded (naturalWidth recorded by the page's script) and that hostile text stayed text."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest
from report_page_fixture import HOSTILE, make_page_fixture

from adapters.report.compare import comparison_of, score_inputs
from adapters.report.html_report import comparison_pages
from adapters.run.runner import RunConfig, run

CHROMIUM = next((found for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
                 if (found := shutil.which(name))), None)
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no Chromium on this machine (Debian/Ubuntu: apt-get install "
                                "-y chromium; .ci/run installs it before the tests)")


class Elements(HTMLParser):
    """Every element's tag, attributes and own text, in document order."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[dict] = []
        self.open: list[dict] = []

    def handle_starttag(self, tag, attrs):
        element = {"tag": tag, "attrs": dict(attrs), "text": ""}
        self.found.append(element)
        if tag not in ("img", "input", "meta", "br"):
            self.open.append(element)

    def handle_endtag(self, tag):
        while self.open and self.open.pop()["tag"] != tag:
            pass

    def handle_data(self, data):
        if self.open:
            self.open[-1]["text"] += data


def dump_dom(index: Path, fragment: str, profile: Path) -> list[dict]:
    done = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                           f"--user-data-dir={profile}", "--virtual-time-budget=10000", "--dump-dom",
                           f"{index.as_uri()}#{fragment}"], capture_output=True, text=True, timeout=180)
    assert done.returncode == 0 and "</html>" in done.stdout, done.stderr[-2000:]
    parser = Elements()
    parser.feed(done.stdout)
    return parser.found


def by_id(elements: list[dict], name: str) -> dict:
    return next(e for e in elements if e["attrs"].get("id") == name)


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    root = tmp_path_factory.mktemp("browser")
    made = make_page_fixture(root)
    run(RunConfig(str(root / "weightfree"), specialist=["sift", "retinex", "lower_is_closer"],
                  blink_root=str(made["blink"]), markers=str(made["markers"]), keep_evidence=True, progress=False))
    scored = score_inputs([root / "weightfree"], [str(made["exact"]), f"chatty={made['chatty']}"])
    comparison_pages(scored, comparison_of(scored), root / "cmp", html=True, figure=None)
    index = root / "cmp" / "comparison_html" / "index.html"
    blob = re.search(r'id="page-data">(.*?)</script>', index.read_text(encoding="utf-8"), re.S).group(1)
    return {"index": index, "data": json.loads(blob), "profile": root / "profile"}


def shown(elements: list[dict]) -> int:
    count = by_id(elements, "count-shown")["attrs"]["data-count"]
    cards = [e for e in elements if e["tag"] == "article"]
    assert int(count) == len(cards)  # one page holds them all here (page size 50)
    return int(count)


def test_every_image_loads_and_every_question_is_listed(page):
    elements = dump_dom(page["index"], "eager=1", page["profile"])
    status = by_id(elements, "page-status")["attrs"]
    assert status["data-ready"] == "1" and float(status["data-render-ms"]) >= 0
    images = [e for e in elements if e["tag"] == "img"]
    question_images = sum(len(q["images"]) for q in page["data"]["questions"])
    evidence = sum(len(a.get("evidence", [])) for q in page["data"]["questions"] for a in q["answers"] if a)
    assert len(images) == question_images + evidence + len(page["data"]["plots"]) > 9
    assert int(status["data-loaded"]) == len(images) and status["data-failed"] == "0"
    assert all(int(img["attrs"]["data-natural-width"]) > 0 for img in images)
    assert shown(elements) == 8
    marks = [e for e in elements if e["tag"] == "circle" and "mark" in e["attrs"].get("class", "")]
    points = sum(len(m) for q in page["data"]["questions"] for m in (q["markers"] or {}).values())
    assert len(marks) == points >= 3 * 2 + 2 * 5 + 2 * 2  # every point the run read, drawn over its image


def test_filters_in_the_hash_leave_the_questions_they_name(page):
    data = page["data"]
    names = [s["name"] for s in data["systems"]]
    exact = names.index("exact")

    def expected(keep) -> int:
        return sum(1 for q in data["questions"] if keep(q))

    elements = dump_dom(page["index"], "task=Relative_Depth", page["profile"])
    assert shown(elements) == 4
    chips = {e["attrs"]["data-task"]: int(e["attrs"]["data-count"]) for e in elements if "data-task" in e["attrs"]}
    assert chips == {"Relative_Depth": 4, "Relative_Reflectance": 0, "Visual_Correspondence": 0}
    # the one question whose markers were not found: an error, its reason shown
    elements = dump_dom(page["index"], "status=error", page["profile"])
    assert shown(elements) == 1
    assert [e["attrs"]["data-idx"] for e in elements if e["tag"] == "article"] == ["val_Relative_Depth_4"]
    reason = next(e["text"] for e in elements if e["tag"] == "div" and e["attrs"].get("class") == "error")
    assert "markers not found" in reason
    # "exact" answers every Relative_Depth question wrong and the rest right, by construction
    elements = dump_dom(page["index"], f"s{exact}=wrong", page["profile"])
    assert shown(elements) == 4
    assert all(e["attrs"]["data-idx"].startswith("val_Relative_Depth") for e in elements if e["tag"] == "article")
    row = next(e for e in elements if e["attrs"].get("data-system") == str(exact))
    assert (row["attrs"]["data-right"], row["attrs"]["data-wrong"]) == ("0", "4")

    def spec_only(q):
        spec, mllms = q["answers"][0], [a for a in q["answers"][1:] if a]
        return bool(spec and spec["ok"]) and bool(mllms) and not any(a["ok"] for a in mllms)

    def mllm_only(q):
        spec, mllms = q["answers"][0], [a for a in q["answers"][1:] if a]
        return bool(spec) and spec["ok"] is False and any(a["ok"] for a in mllms)

    for fragment, keep in (("only=spec", spec_only), ("only=mllm", mllm_only),
                           ("status=unparsed", lambda q: any(a and a["status"] == "unparsed" for a in q["answers"])),
                           (f"task=Visual_Correspondence&s{exact}=right", lambda q: q["task"] == "Visual_Correspondence"
                            and q["answers"][exact]["ok"])):
        assert shown(dump_dom(page["index"], fragment, page["profile"])) == expected(keep), fragment
    assert expected(spec_only) + expected(mllm_only) > 0


def test_hostile_text_in_a_prompt_and_an_answer_shows_as_text(page):
    elements = dump_dom(page["index"], "task=Relative_Depth", page["profile"])
    assert sum(1 for e in elements if e["tag"] == "script") == 2  # the data blob and the page's own script
    assert by_id(elements, "title")["text"].startswith("Specialists versus MLLMs")
    title = next(e for e in elements if e["tag"] == "title")
    assert "pwned" not in title["text"]
    questions = [e["text"] for e in elements if e["tag"] == "p" and e["attrs"].get("class") == "question"]
    assert questions and all(text.endswith(HOSTILE) for text in questions)
    raw = [e["text"] for e in elements if e["tag"] == "pre" and e["attrs"].get("class") == "raw"]
    assert f"{HOSTILE} The answer is (A)" in raw


def test_the_large_view_shows_the_image_with_its_markers(page):
    idx = "val_Visual_Correspondence_1"
    elements = dump_dom(page["index"], f"open={idx}", page["profile"])
    viewer = by_id(elements, "viewer")
    assert "hidden" not in viewer["attrs"]
    start = elements.index(viewer)
    inside = elements[start + 1:]
    large = next(e for e in inside if e["tag"] == "img")
    assert large["attrs"]["src"].startswith("img/") and int(large["attrs"]["data-natural-width"]) == 160
    circles = [e for e in inside[: inside.index(large) + 4] if e["tag"] == "circle"]
    assert len(circles) == 1  # REF on the first image
    caption = next(e for e in inside if e["tag"] == "p")
    assert caption["text"].startswith(f"{idx} image_1 (160x120); markers from the --markers file")
