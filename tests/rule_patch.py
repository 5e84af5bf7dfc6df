"""Undo one of the marker parser's rules, or move one of its thresholds, for a test.

The parser's modules bind the functions and thresholds they use by name (`from .thresholds import
X`), so a rule patched in the module that defines it is still the old one where it is used. These
tests ask what a question reads like without a rule; `patch_everywhere` patches the name in every
loaded module of adapters.markers that binds it.
"""

from __future__ import annotations

import importlib
import sys


def patch_everywhere(monkeypatch, name: str, value) -> None:
    """Set `name` to `value` in every loaded adapters.markers module that binds it (undone when the
    test ends); a name no module binds is a typo in the test, and fails it."""
    importlib.import_module("adapters.markers")  # loads the package's modules
    bound = [module for module_name, module in list(sys.modules.items())
             if module_name.startswith("adapters.markers.") and module is not None and hasattr(module, name)]
    assert bound, f"no adapters.markers module binds {name!r}"
    for module in bound:
        monkeypatch.setattr(module, name, value)
