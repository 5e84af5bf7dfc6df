"""Where weights may already lie on this machine, read from the environment at call time.

Resolution order: an explicit path, then SPECIALISTS_HOME, then the Hugging Face
cache, then the torch hub cache. Environment variables are read on every call (not at import)
so that tests and users can point them elsewhere without restarting Python.
"""

from __future__ import annotations

import os
from pathlib import Path

DEFAULT_HOME = Path("~/.cache/blink-specialists")


class HomeError(ValueError):
    """SPECIALISTS_HOME names a file, not a folder."""


def specialists_home() -> Path:
    """SPECIALISTS_HOME, default ~/.cache/blink-specialists: where fetch and import put weights.
    HomeError when it names an existing file."""
    home = Path(os.environ.get("SPECIALISTS_HOME") or DEFAULT_HOME).expanduser()
    if home.exists() and not home.is_dir():
        raise HomeError(f"SPECIALISTS_HOME={home} is a file, not a folder: point SPECIALISTS_HOME at a folder "
                        f"(or unset it to use {DEFAULT_HOME})")
    return home


def hf_hub_cache() -> Path:
    """The Hugging Face hub cache, with huggingface_hub's own precedence of variables
    (HF_HUB_CACHE, then HF_HOME/hub, then XDG_CACHE_HOME/huggingface/hub). Re-derived here
    because huggingface_hub.constants freezes them at import time."""
    if os.environ.get("HF_HUB_CACHE"):
        return Path(os.environ["HF_HUB_CACHE"]).expanduser()
    if os.environ.get("HF_HOME"):
        return Path(os.environ["HF_HOME"]).expanduser() / "hub"
    xdg = os.environ.get("XDG_CACHE_HOME") or "~/.cache"
    return Path(xdg).expanduser() / "huggingface" / "hub"


def torch_hub_checkpoints() -> Path:
    """Where torch.hub.load_state_dict_from_url (and so kornia, timm urls) keeps files."""
    import torch.hub

    return Path(torch.hub.get_dir()) / "checkpoints"
