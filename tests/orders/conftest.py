from __future__ import annotations

import pytest

from pbem.data.loader import load


@pytest.fixture(scope="session")
def rs():
    return load("classic")
