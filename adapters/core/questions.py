"""The two types every adapter speaks: a multiple-choice question in, a decision out.

`MCQuestion` is what a benchmark reader yields (BLINK, the synthetic generator, ComBo);
`Decision` is what a decision rule returns for one question. Both are plain data, so they
travel through the runner, into `samples.jsonl`, and back on `--resume` unchanged.
"""

from __future__ import annotations

import io
import math
import re
import string
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterable, Mapping, Sequence

from PIL import Image

from adapters.core.image_decode import UnreadablePixels, displayed_rgb

LETTERS = string.ascii_uppercase
_ANSWER = re.compile(r"\(([A-Z])\)")


class QuestionError(Exception):
    """One question cannot be answered (bad image, markers not found, ...).

    The runner records it as that question's error and goes on with the next one.
    """


class ImageDecodeError(QuestionError):
    """An image of a question could not be decoded."""


def letters_for(n_choices: int) -> tuple[str, ...]:
    """The option letters of a question with `n_choices` choices: A, B, C, ..."""
    if not 1 <= n_choices <= len(LETTERS):
        raise ValueError(f"a question needs 1 to {len(LETTERS)} choices, got {n_choices}")
    return tuple(LETTERS[:n_choices])


def parse_gold(raw: str | None) -> str | None:
    """BLINK's gold answer "(B)" -> "B"; the test split's "hidden" (or None) -> None.

    Raises ValueError for anything else, so a malformed answer column is never scored silently.
    """
    if raw is None:
        return None
    raw = raw.strip()
    if raw.lower() == "hidden" or raw == "":
        return None
    match = _ANSWER.fullmatch(raw)
    if match is None:
        raise ValueError(f'expected an answer like "(A)" or "hidden", got {raw!r}')
    return match.group(1)


def option_texts(raw: Any) -> tuple[str, ...]:
    """A question's choices as a tuple of option texts, or ValueError saying what is wrong.

    A string is refused rather than read as a sequence: "AB" would become the options "A", "B".
    """
    if isinstance(raw, (str, bytes, Mapping)) or not isinstance(raw, Iterable):
        raise ValueError(f"choices must be a list of option texts, got {type(raw).__name__} {_short(raw)}")
    texts = tuple(raw)
    if not texts:
        raise ValueError("the choices list is empty")
    bad = [text for text in texts if not isinstance(text, str)]
    if bad:
        raise ValueError(f"choices must be texts, got {type(bad[0]).__name__} {_short(bad[0])} among them")
    letters_for(len(texts))  # 1 to 26 options
    return texts


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


@dataclass(frozen=True)
class AnswerVersion:
    """Which gold answers a run was scored against.

    `name` is "dataset" for the answers inside the benchmark files, or the file name of an
    `--answers` override; `sha256` identifies the exact bytes of that override (None for the
    dataset's own answers, whose files are hashed in the run's data section); `n_entries` counts
    the override's entries (how many of them a run applied is the run's `n_overridden`).
    """

    name: str
    sha256: str | None = None
    n_entries: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "sha256": self.sha256, "n_entries": self.n_entries}


DATASET_ANSWERS = AnswerVersion(name="dataset")


@dataclass(frozen=True)
class QuestionSource:
    """Where a question came from: benchmark, split, file and answer version."""

    benchmark: str
    split: str
    file: str | None = None
    answers: AnswerVersion = DATASET_ANSWERS


@dataclass
class MCQuestion:
    """One multiple-choice question.

    `images` decode lazily on first access (PIL RGB images, in the order image_1, image_2, ...);
    a corrupt image raises `ImageDecodeError` there, for this question only.
    """

    idx: str
    task: str
    prompt: str
    choices: tuple[str, ...]
    gold: str | None
    source: QuestionSource
    question: str = ""
    sub_task: str | None = None
    # Known marker positions {"image_1": {"A": (x, y), ...}} from a --markers sidecar or a
    # generator; None = find them by parsing the drawn markers.
    markers: dict[str, dict[str, tuple]] | None = None
    # What a benchmark's own metrics group questions by (MARVEL's puzzle, pattern and task
    # configuration; BLINK-Twice's image and group): JSON-able, copied into the sample line.
    meta: dict[str, Any] | None = None
    _image_loader: Callable[[], list[Image.Image]] | None = field(default=None, repr=False)
    _images: list[Image.Image] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        self.choices = option_texts(self.choices)
        if self.gold is not None and self.gold not in self.letters:
            raise ValueError(
                f"{self.idx}: gold answer ({self.gold}) is not one of the options {self.letters}"
            )

    @property
    def letters(self) -> tuple[str, ...]:
        return letters_for(len(self.choices))

    @property
    def images(self) -> list[Image.Image]:
        if self._images is None:
            self._images = self._image_loader() if self._image_loader is not None else []
        return self._images

    def choice_text(self, letter: str) -> str:
        return self.choices[self.letters.index(letter)]


@dataclass(frozen=True)
class BrokenQuestion:
    """A question a reader could not build (malformed row, bad answer); recorded as an error and
    counted wrong, unless its split's answers are hidden (`answer_hidden`: then it is unscored,
    as every question of that split is). `gold` is the answer when the row still gives one."""

    idx: str
    task: str
    error: str
    gold: str | None = None
    meta: dict[str, Any] | None = None
    answer_hidden: bool = False


# Pixels one image may have: BLINK's are under 2 MP; a 64 MP photograph still decodes (about 200 MB
# as RGB), while a decompression bomb (a small file claiming a huge canvas) is refused unread.
MAX_IMAGE_PIXELS = 64_000_000


def decode_image(data: bytes, *, idx: str, column: str) -> Image.Image:
    """Decode encoded image bytes to the 8-bit RGB picture a viewer shows (upright by its EXIF
    orientation, first frame, transparency over white: see adapters/core/image_decode.py), or raise
    ImageDecodeError naming them."""
    try:
        with Image.open(io.BytesIO(data)) as img:
            width, height = img.size  # from the header: nothing is decoded yet
            if width * height > MAX_IMAGE_PIXELS:
                raise ImageDecodeError(
                    f"{idx}: {column} is {width}x{height} ({width * height / 1e6:.0f} MP), over the "
                    f"{MAX_IMAGE_PIXELS / 1e6:.0f} MP this suite decodes (a decompression bomb, or a photograph "
                    "at full camera size): resize it in the dataset file")
            img.load()
            rgb = displayed_rgb(img)
            # which codec the dataset stored (JPEG or PNG): a detector trained on files of one
            # kind (DIRE) must treat each image as its source was stored
            rgb.format = img.format
            # a JPEG's own bytes: a model fed grey straight from the file (LoFTR) reads its luma
            # plane, which the trip through RGB moves by a few levels on some pixels
            rgb.encoded = data if img.format == "JPEG" else None
            return rgb
    except ImageDecodeError:
        raise
    except UnreadablePixels as exc:
        raise ImageDecodeError(
            f"{idx}: {column} has {exc}: convert it to an 8-bit RGB PNG or JPEG in the dataset file"
        ) from exc
    except Exception as exc:  # PIL raises several unrelated types for bad bytes
        raise ImageDecodeError(
            f"{idx}: {column} could not be decoded ({type(exc).__name__}: {exc}); "
            "the image bytes in the dataset file are damaged: re-download that task's file"
        ) from exc


@dataclass(frozen=True)
class Decision:
    """A decision rule's answer to one question.

    scores: letter -> score, higher = more likely (the rule's own scale).
    pred: the chosen letter, or None when the rule abstained.
    rule: the decision rule's name, e.g. "depth.disparity_at_points".
    tie: True when the best score was shared and a tie-break chose `pred`.
    abstained: True when the rule declined to answer (`pred` is None then).
    details: a small JSON-able dict of the measured values behind the scores.
    evidence: small pictures of the dense output behind the scores (name -> PIL RGB image, e.g.
    "depth", "albedo", "matches"), attached only when the run keeps evidence
    (`SolverOptions.keep_evidence`); written beside the samples as thumbnails, never into JSON.
    """

    scores: Mapping[str, float]
    pred: str | None
    rule: str
    tie: bool = False
    abstained: bool = False
    details: Mapping[str, Any] = field(default_factory=dict)
    evidence: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.abstained != (self.pred is None):
            raise ValueError("a Decision abstains exactly when it has no pred")

    @classmethod
    def from_scores(
        cls, scores: Mapping[str, float], rule: str, details: Mapping[str, Any] | None = None
    ) -> "Decision":
        """Pick the highest score; ties go to the earliest letter and are flagged.

        NaN scores never win; all-NaN scores abstain.
        """
        finite = {k: float(v) for k, v in scores.items() if not math.isnan(float(v))}
        if not finite:
            return cls(dict(scores), None, rule, abstained=True, details=dict(details or {}))
        best = max(finite.values())
        winners = sorted(k for k, v in finite.items() if v == best)
        return cls(dict(scores), winners[0], rule, tie=len(winners) > 1, details=dict(details or {}))

    def with_evidence(self, **views: Any) -> "Decision":
        """The same decision carrying these evidence pictures (name -> PIL image) too."""
        return replace(self, evidence={**self.evidence, **views})

    def to_json(self) -> dict[str, Any]:
        return {
            "scores": {k: _json_float(v) for k, v in self.scores.items()},
            "pred": self.pred,
            "rule": self.rule,
            "tie": self.tie,
            "abstained": self.abstained,
            "details": dict(self.details),
        }


def _json_float(value: float) -> float | None:
    value = float(value)
    return None if math.isnan(value) or math.isinf(value) else value


def option_lines(choices: Sequence[str]) -> str:
    """BLINK's option block: "(A) first\\n(B) second"."""
    return "\n".join(f"({letter}) {text}" for letter, text in zip(letters_for(len(choices)), choices))
