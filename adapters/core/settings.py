"""Named pipeline choices of a specialist (`specialists run --set NAME.KEY=VALUE`).

Where a wrapper could follow the official pipeline or a defensible alternative (a resize rule,
a codec, a reflectance measure), the choice is a `Setting`: the default is what the official
code does, the alternatives stay available by name, and the run records every effective value
in results.json (per task, and in the run's identity, so `--resume` refuses a changed choice).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence


class SettingError(ValueError):
    pass


@dataclass(frozen=True)
class Setting:
    """name: the key after the specialist's name; default: the official pipeline's choice;
    choices: every accepted value (default first); why: one line on what the default reproduces."""

    name: str
    default: str
    choices: tuple[str, ...]
    why: str

    def __post_init__(self) -> None:
        if self.default not in self.choices:
            raise ValueError(f"setting {self.name!r}: default {self.default!r} is not among {self.choices}")


def parse_overrides(items: Sequence[str] | None) -> dict[str, dict[str, str]]:
    """["depth_anything.resize=transformers", ...] -> {"depth_anything": {"resize": "transformers"}}."""
    out: dict[str, dict[str, str]] = {}
    for item in items or []:
        name, eq, value = item.partition("=")
        specialist, dot, key = name.partition(".")
        if not (eq and dot and specialist and key and value):
            raise SettingError(f"--set {item!r}: write SPECIALIST.KEY=VALUE, e.g. depth_anything.resize=transformers "
                               "(`specialists ls` lists each specialist's settings)")
        if key in out.get(specialist, {}):
            raise SettingError(f"--set {specialist}.{key} is given twice")
        out.setdefault(specialist, {})[key] = value
    return out


def resolve(specialist: str, declared: Sequence[Setting], overrides: Mapping[str, str] | None = None) -> dict[str, str]:
    """Every declared setting's effective value: the override where given, else the default.
    An unknown key or value is refused, naming what is accepted."""
    overrides = dict(overrides or {})
    by_name = {s.name: s for s in declared}
    unknown = sorted(set(overrides) - set(by_name))
    if unknown:
        known = ", ".join(sorted(by_name)) or "none"
        raise SettingError(f"--set {specialist}.{unknown[0]}: {specialist} has no setting {unknown[0]!r} (its settings: {known})")
    values = {}
    for setting in declared:
        value = overrides.get(setting.name, setting.default)
        if value not in setting.choices:
            raise SettingError(f"--set {specialist}.{setting.name}={value}: choose one of {', '.join(setting.choices)}")
        values[setting.name] = value
    return values
