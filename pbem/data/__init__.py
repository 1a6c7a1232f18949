"""Package data: rulesets (YAML) and map geometry (JSON)."""

from __future__ import annotations

from importlib import resources
from pathlib import Path


def data_path(*parts: str) -> Path:
    return Path(str(resources.files("pbem.data").joinpath(*parts)))
