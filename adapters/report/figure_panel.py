"""`--figure IDX ...`: chosen questions as one panel for a paper column (3.25 in wide), PNG and PDF.

One row per question: its images side by side with the markers the run used drawn over them
(cyan; yellow dashed where a marker was not placed by a label read beside it), and under them
the question id, the gold answer and each system's choice, right or wrong.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any, Mapping, Sequence

COLUMN_WIDTH = 3.25  # in: one column of a two-column paper (ACL, CVPR, NeurIPS)
MARGIN = 0.04  # in
GAP = 0.05  # in, between images
MAX_ROW_HEIGHT = 1.5  # in: a tall image does not take the page
LINE = 0.115  # in per caption line at FONT_SIZE
FONT_SIZE = 6.0
MARK = "#00e5ff"
UNUSUAL = "#ffd000"


def _short(system: Mapping[str, Any], answer: Mapping[str, Any]) -> str:
    """A system's name as a panel can print it: the specialist's own name, the MLLM's."""
    return str(answer.get("who") or system["name"]) if system["kind"] == "specialist" else str(system["name"])


def caption_lines(entry: Mapping[str, Any], systems: Sequence[Mapping[str, Any]], width: int = 72) -> list[str]:
    """"val_Relative_Depth_3 (Relative_Depth), gold B: B is closer" and the answers, wrapped."""
    gold = entry.get("gold")
    head = f"{entry['idx']}  gold {gold or 'hidden'}"
    choices = entry.get("choices") or []
    if gold and choices and ord(gold) - 65 < len(choices):
        head += f": {choices[ord(gold) - 65]}"
    said = []
    for system, answer in zip(systems, entry["answers"]):
        if answer is None:
            continue
        mark = {True: "\u2713", False: "\u2717"}.get(answer.get("ok"), "")
        choice = answer.get("pred") or answer.get("status")
        said.append(f"{_short(system, answer)} {choice}{mark}")
    return textwrap.wrap(head, width) + textwrap.wrap("; ".join(said), width)


def _draw_markers(ax, marks: Mapping[str, Mapping[str, Any]] | None, scale: float) -> None:
    from matplotlib import patheffects
    from matplotlib.patches import Rectangle

    halo = [patheffects.withStroke(linewidth=1.2, foreground="black")]
    for label, m in (marks or {}).items():
        colour = UNUSUAL if m.get("source") else MARK
        x, y = m["xy"]
        if m.get("box"):
            x0, y0, x1, y1 = m["box"]
            ax.add_patch(Rectangle((x0, y0), x1 - x0, y1 - y0, fill=False, edgecolor=colour, linewidth=0.8,
                                   path_effects=halo))
            x, y = x0, y0
        else:
            ax.scatter([x], [y], s=14, facecolors="none", edgecolors=colour, linewidths=0.8, path_effects=halo)
        ax.text(x + 6 * scale, y - 6 * scale, label, color=colour, fontsize=FONT_SIZE - 0.5, fontweight="bold",
                path_effects=halo, ha="left", va="bottom")


def write_figure(entries: Sequence[Mapping[str, Any]], questions: Mapping[str, Any],
                 systems: Sequence[Mapping[str, Any]], stem: Path) -> dict[str, Path]:
    """Write stem.png (300 dpi) and stem.pdf; returns their paths."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = []
    for entry in entries:
        question = questions.get(entry["idx"])
        images = list(question.images) if question is not None else []
        aspects = [im.size[0] / im.size[1] for im in images]
        usable = COLUMN_WIDTH - 2 * MARGIN - GAP * max(len(images) - 1, 0)
        height = min(MAX_ROW_HEIGHT, usable / sum(aspects)) if images else 0.0
        lines = caption_lines(entry, systems)
        rows.append((entry, images, aspects, height, lines))
    total = sum(h + LINE * len(lines) + 2 * MARGIN for _, _, _, h, lines in rows)
    fig = plt.figure(figsize=(COLUMN_WIDTH, total))
    top = total
    for entry, images, aspects, height, lines in rows:
        top -= MARGIN
        width = sum(a * height for a in aspects) + GAP * max(len(images) - 1, 0)
        left = (COLUMN_WIDTH - width) / 2
        for number, (image, aspect) in enumerate(zip(images, aspects), start=1):
            w = aspect * height
            ax = fig.add_axes((left / COLUMN_WIDTH, (top - height) / total, w / COLUMN_WIDTH, height / total))
            ax.imshow(image.convert("RGB"), interpolation="lanczos")
            ax.set_axis_off()
            marks = (entry.get("markers") or {}).get(f"image_{number}")
            _draw_markers(ax, marks, image.size[0] / (w * 72))  # label offset: about 6 pt, in image pixels
            ax.set_xlim(-0.5, image.size[0] - 0.5)
            ax.set_ylim(image.size[1] - 0.5, -0.5)
            left += w + GAP
        top -= height
        for line in lines:
            fig.text(MARGIN / COLUMN_WIDTH, (top - LINE * 0.85) / total, line, fontsize=FONT_SIZE, ha="left",
                     va="baseline")
            top -= LINE
        top -= MARGIN
    paths = {"png": stem.with_suffix(".png"), "pdf": stem.with_suffix(".pdf")}
    stem.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(paths["png"], dpi=300)
    fig.savefig(paths["pdf"])
    plt.close(fig)
    return paths
