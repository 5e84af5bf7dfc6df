"""What a results file must record to be reproduced: versions, git commit, device, seeds."""

from __future__ import annotations

import importlib.metadata
import platform
import random
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

PACKAGES = (
    "blink-specialists", "torch", "torchvision", "timm", "diffusers", "kornia", "kornia-rs",
    "transformers", "opencv-python-headless", "lightning", "numpy", "pyarrow", "pillow",
)


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def package_versions() -> dict[str, str | None]:
    versions: dict[str, str | None] = {}
    for name in PACKAGES:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def git_state(path: Path = Path(__file__).resolve().parent) -> dict[str, Any]:
    """Commit and dirty flag of the checkout this code runs from (None outside a git checkout)."""
    def git(*args: str) -> str | None:
        try:
            done = subprocess.run(["git", "-C", str(path), *args], capture_output=True, text=True, timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            return None
        return done.stdout.strip() if done.returncode == 0 else None

    commit = git("rev-parse", "HEAD")
    status = git("status", "--porcelain", "--untracked-files=no") if commit else None
    return {"commit": commit, "dirty": bool(status) if status is not None else None}


def device_description(device: str) -> str:
    """A human-readable name of the device a run used, e.g. 'cuda:0 (NVIDIA H100 80GB HBM3)'."""
    if device.startswith("cuda"):
        import torch

        if torch.cuda.is_available():
            index = torch.device(device).index or 0
            return f"{device} ({torch.cuda.get_device_name(index)})"
        return f"{device} (not available)"
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"cpu ({cpu})"


def environment(device: str) -> dict[str, Any]:
    return {
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "packages": package_versions(),
        "git": git_state(),
        "device": device_description(device),
    }


def seed_everything(seed: int) -> None:
    """Seed Python, NumPy and (when a specialist has loaded it) torch."""
    import numpy as np

    random.seed(seed)
    np.random.seed(seed % 2**32)
    if "torch" in sys.modules:
        sys.modules["torch"].manual_seed(seed)
